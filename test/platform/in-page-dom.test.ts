// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PERSISTED_KEYS, whatAClientTouches } from './in-page-fixtures';

afterEach(() => vi.unstubAllGlobals());

describe('defaults by place: in a browser page (a document and a window)', () => {
  it('tab sync and the localStorage cache are on by default', async () => {
    expect(await whatAClientTouches()).toEqual({ channels: [expect.any(String)], storedKeys: PERSISTED_KEYS });
  });

  it('each can be turned off', async () => {
    expect(await whatAClientTouches({ syncTabs: false, persist: false })).toEqual({ channels: [], storedKeys: [] });
  });
});
