import { expect, vi } from 'vitest';
import { createClient } from '../../src/client';
import type { ClientOptions } from '../../src/options';
import { createFakeTransport, jsonResponse } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';

/** Counts the BroadcastChannels opened from now on (names, in order); the real channel still works. */
function openedChannels(): string[] {
  const opened: string[] = [];
  const Real = globalThis.BroadcastChannel;
  vi.stubGlobal(
    'BroadcastChannel',
    class extends Real {
      constructor(name: string) {
        super(name);
        opened.push(name);
      }
    },
  );
  return opened;
}

/** A global `localStorage` over a Map (Deno has one), returned to read what was stored. */
function stubLocalStorage(): Map<string, string> {
  const stored = new Map<string, string>();
  vi.stubGlobal('localStorage', {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => void stored.set(key, value),
    removeItem: (key: string) => void stored.delete(key),
  });
  return stored;
}

/**
 * Runs a client (default options but `extra`) from creation to a fetched snapshot and
 * `close()`, with both globals in place: the tab channels it opened and the keys it stored.
 */
export async function whatAClientTouches(extra: Partial<ClientOptions> = {}) {
  const channels = openedChannels();
  const stored = stubLocalStorage();
  const client = createClient({
    sdkKey: 'svc_sdk_client_in_page_0001',
    baseUrl: 'https://flags.test',
    pollInterval: 0,
    events: false,
    transport: createFakeTransport(() => jsonResponse(200, snapshotOf(1, { a: 1 }), { etag: '"snapshot-1"' })).transport,
    ...extra,
  });
  await client.ready();
  await client.close();
  return { channels, storedKeys: [...stored.keys()].sort() };
}

/** What a persisting client stores: its snapshot and its anonymous id. */
export const PERSISTED_KEYS = [expect.stringMatching(/^flagplane:snapshot:/), 'svc:anonymousId'];
