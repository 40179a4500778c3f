import { afterEach, describe, expect, it, vi } from 'vitest';
import { PERSISTED_KEYS, whatAClientTouches } from './in-page-fixtures';

afterEach(() => vi.unstubAllGlobals());

describe('defaults by place: outside a browser page', () => {
  it('Node, Bun, Deno: no tab sync and no localStorage cache by default, though both globals exist', async () => {
    expect(await whatAClientTouches()).toEqual({ channels: [], storedKeys: [] });
  });

  it('React Native: a `window` without a `document` is not a page', async () => {
    vi.stubGlobal('window', globalThis);
    expect(await whatAClientTouches()).toEqual({ channels: [], storedKeys: [] });
  });

  it('asked for, both are on anywhere', async () => {
    expect(await whatAClientTouches({ syncTabs: true, persist: true })).toEqual({ channels: [expect.any(String)], storedKeys: PERSISTED_KEYS });
  });
});
