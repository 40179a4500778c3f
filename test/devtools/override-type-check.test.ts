// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { mountDevtools, type Devtools } from '../../devtools/index';
import { kindsOf, parseOverride } from '../../devtools/json-kind';
import { createTestClient } from '../../testing/index';
import { servingFlag } from '../helpers/snapshots';
import { overrideIn, row } from './panel-dom';

describe('an override is JSON of the JSON kind the flag serves', () => {
  it("takes a flag's kinds from its variations, a null variation aside", () => {
    expect(kindsOf(servingFlag('blue'))).toEqual(['string']);
    expect(kindsOf({ variations: [true, false] })).toEqual(['boolean']);
    expect(kindsOf({ variations: [[1], { a: 1 }] })).toEqual(['array', 'object']);
    expect(kindsOf({ variations: [null] })).toEqual([]);
    expect(kindsOf(undefined)).toEqual([]);
  });

  it('accepts a value of the kind, refuses another kind and text that is not JSON', () => {
    expect(parseOverride('false', ['boolean'])).toEqual({ ok: true, value: false });
    expect(parseOverride(' "green" ', ['string'])).toEqual({ ok: true, value: 'green' });
    expect(parseOverride('{"a":[1]}', ['object'])).toEqual({ ok: true, value: { a: [1] } });
    expect(parseOverride('"true"', ['boolean'])).toEqual({ ok: false, message: 'a string, but this flag serves boolean' });
    expect(parseOverride('1', ['boolean'])).toMatchObject({ ok: false });
    expect(parseOverride('[1]', ['object'])).toEqual({ ok: false, message: 'an array, but this flag serves object' });
    expect(parseOverride('null', ['number'])).toMatchObject({ ok: false });
    expect(parseOverride('green', ['string'])).toEqual({ ok: false, message: 'not JSON: green (a string needs quotes)' });
    expect(parseOverride('', ['number'])).toEqual({ ok: false, message: 'not JSON: (empty)' });
  });

  it('takes any kind where the flag gives none', () => {
    expect(parseOverride('null', [])).toEqual({ ok: true, value: null });
    expect(parseOverride('[1,2]', [])).toEqual({ ok: true, value: [1, 2] });
  });
});

describe('the panel checks an override before it reaches the client', () => {
  let devtools: Devtools | undefined;
  afterEach(() => {
    devtools?.unmount();
    sessionStorage.clear();
  });

  it('applies a value of the kind on Enter; shows why it refuses another and leaves the client alone', async () => {
    const client = createTestClient({ flags: { 'dark-mode': false, 'page-size': 10 } });
    devtools = mountDevtools(client, { open: true });
    expect(await overrideIn('page-size', '"ten"')).toBe('a string, but this flag serves number');
    expect(client.getDetails('page-size')).toMatchObject({ value: 10, reason: 'DEFAULT' });
    expect(row('page-size').querySelector('[data-role=override]')!.getAttribute('aria-invalid')).toBe('true');

    expect(await overrideIn('page-size', '25')).toBe('');
    expect(client.getDetails('page-size')).toMatchObject({ value: 25, reason: 'OVERRIDE' });
    expect(row('page-size').querySelector('[data-role=reason]')!.textContent).toBe('OVERRIDE');
    expect(row('page-size').classList.contains('overridden')).toBe(true);
    expect(client.getDetails('dark-mode')).toMatchObject({ value: false, reason: 'DEFAULT' });
  });

  it("checks a key the snapshot lacks against the fallback the app read it with", async () => {
    const client = createTestClient({ flags: { 'dark-mode': false } });
    devtools = mountDevtools(client, { open: true });
    expect(client.get('new-banner', 'none')).toBe('none');
    await Promise.resolve();
    expect(row('new-banner').querySelector('.badge')!.textContent).toBe('not in snapshot');
    expect(await overrideIn('new-banner', 'true')).toBe('a boolean, but this flag serves string');
    expect(await overrideIn('new-banner', '"shown"')).toBe('');
    expect(client.get('new-banner', 'none')).toBe('shown');
  });
});
