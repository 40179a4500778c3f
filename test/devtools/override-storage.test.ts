// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { mountDevtools as mount, type Devtools } from '../../devtools/index';
import { loadOverrides, overridesKey, saveOverrides } from '../../devtools/override-store';
import { createTestClient } from '../../testing/index';
import { overrideIn, row } from './panel-dom';

const mounted: Devtools[] = [];
const mountDevtools = (...args: Parameters<typeof mount>) => mounted[mounted.push(mount(...args)) - 1]!;

afterEach(() => {
  // A test that failed half-way leaves no panel for the next one to find.
  for (const devtools of mounted.splice(0)) devtools.unmount();
  sessionStorage.clear();
});

describe('overrides kept in sessionStorage', () => {
  it('round-trips an object of overrides, and removes the key when there are none', () => {
    const key = overridesKey('production');
    expect(key).toBe('flagplane-devtools:overrides:production');
    saveOverrides(sessionStorage, key, { color: 'green', size: 50, nested: { a: [1, null] } });
    expect(loadOverrides(sessionStorage, key)).toEqual({ color: 'green', size: 50, nested: { a: [1, null] } });
    saveOverrides(sessionStorage, key, {});
    expect(sessionStorage.getItem(key)).toBeNull();
    expect(loadOverrides(sessionStorage, key)).toEqual({});
  });

  it('reads what is not an object of overrides as none', () => {
    for (const kept of ['not json', '[1,2]', 'null', '"x"']) {
      sessionStorage.setItem('k', kept);
      expect(loadOverrides(sessionStorage, 'k'), kept).toEqual({});
    }
    expect(loadOverrides(undefined, 'k')).toEqual({});
  });

  it("keeps the panel's overrides per environment, and a new mount applies them again", async () => {
    const first = createTestClient({ flags: { color: 'blue', size: 10 } });
    const devtools = mountDevtools(first, { open: true });
    await overrideIn('color', '"green"');
    expect(JSON.parse(sessionStorage.getItem('flagplane-devtools:overrides:test')!)).toEqual({ color: 'green' });
    devtools.unmount();
    // Unmounted, the client serves what it served before.
    expect(first.getDetails('color')).toMatchObject({ value: 'blue', reason: 'DEFAULT' });

    // A reload: a new client, a new mount.
    const second = createTestClient({ flags: { color: 'blue', size: 10 } });
    const again = mountDevtools(second, { open: true });
    expect(second.getDetails('color')).toMatchObject({ value: 'green', reason: 'OVERRIDE' });
    expect(row('color').querySelector('[data-role=value]')!.textContent).toBe('"green"');
    row('color').querySelector<HTMLButtonElement>('[data-role=clear-override]')!.click();
    expect(second.getDetails('color')).toMatchObject({ value: 'blue', reason: 'DEFAULT' });
    expect(sessionStorage.getItem('flagplane-devtools:overrides:test')).toBeNull();
    again.unmount();
  });

  it("keeps the app's own overrides under the panel's, and leaves them at unmount", async () => {
    const client = createTestClient({ flags: { color: 'blue', size: 10 } });
    client.setOverrides({ size: 99 });
    const devtools = mountDevtools(client, { open: true, storageKey: 'mine' });
    await overrideIn('color', '"red"');
    expect(client.getAll()).toEqual({ color: 'red', size: 99 });
    client.setOverrides({ size: 5 });
    expect(client.getAll()).toEqual({ color: 'red', size: 5 });
    expect(sessionStorage.getItem('mine')).toBe('{"color":"red"}');
    devtools.unmount();
    expect(client.getAll()).toEqual({ color: 'blue', size: 5 });
  });
});
