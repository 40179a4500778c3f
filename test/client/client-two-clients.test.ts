import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { BusChannel } from '../helpers/bus-channel';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('two clients in one page', () => {
  it.fails('two clients that generate their anonymous id on one async storage end up with the id that storage keeps', async () => {
    // KNOWN LIMITATION, documented in docs/events.md ("The anonymous id"); was reported as: docs/events.md, The anonymous id: "persisted under `anonymousStorageKey` … A returning
    // visitor keeps the id, and so their rollout buckets." anonymous-id.ts reads, and on a miss
    // writes its own generated id, with nothing shared between clients: two clients created
    // together on an async storage (React Native AsyncStorage, two SDK keys in one app: the
    // default `anonymousStorageKey` is the same) both miss, both write, the last write wins, and
    // the first client buckets this session with an id the next session will not have. Fix:
    // share the read-or-create per (storage, key) (a module-level WeakMap of pending promises),
    // or after writing, read back and adopt what the storage holds.
    const values = new Map<string, string>();
    const storage: StorageAdapter = {
      get: async (key) => values.get(key) ?? null,
      set: async (key, value) => void values.set(key, value),
      remove: async (key) => void values.delete(key),
    };
    const plane = fakeDataPlane(snapshotOf(1, { a: 1 }));
    const options = { events: true, flushInterval: 0, cache: storage, anonymousId: undefined };
    const first = harness(plane.handler, options);
    const second = harness(plane.handler, { ...options, sdkKey: 'svc_sdk_client_other_key_0001' });
    await Promise.all([first.client.ready(), second.client.ready()]);
    await vi.advanceTimersByTimeAsync(0);
    first.client.get('a');
    second.client.get('a');
    await Promise.all([first.client.close(), second.client.close()]);
    const ids = plane.events.filter((event) => event.type === 'evaluation').map((event) => event.userId);
    expect(ids).toHaveLength(2);
    expect(values.get('svc:anonymousId')).toBe(ids[0]);
    expect(ids[1]).toBe(ids[0]);
  });

  it('two clients of one key in one page share snapshots over the channel without echoing them back', async () => {
    vi.stubGlobal('BroadcastChannel', BusChannel);
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const one = harness(server.handler, { syncTabs: true, pollInterval: 60_000 });
    const two = harness(server.handler, { syncTabs: true, pollInterval: 60_000 });
    await Promise.all([one.client.ready(), two.client.ready()]);
    await vi.advanceTimersByTimeAsync(0);
    const posts = vi.spyOn(BusChannel.prototype, 'postMessage');
    server.publish(snapshotOf(2, { a: 2 }));
    await one.client.refresh();
    await vi.advanceTimersByTimeAsync(0);
    expect(two.client.getStatus()).toMatchObject({ source: 'tab', version: 2 });
    expect(two.client.get('a')).toBe(2);
    // Only the client that fetched publishes; the receiver neither re-publishes nor fetches.
    expect(posts).toHaveBeenCalledTimes(1);
    expect(two.requests).toHaveLength(1);
    // The receiver's next poll sends the shared ETag and gets a 304.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(two.requests.at(-1)!.headers['if-none-match']).toBe('"snapshot-2"');
    await Promise.all([one.client.close(), two.client.close()]);
    expect(BusChannel.open.size).toBe(0);
  });
});
