import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, response, type Reply } from '../helpers/fake-transport';
import { harness, CLIENT_KEY } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { fingerprint } from '../../src/shared/fingerprint';
import { BusChannel } from '../helpers/bus-channel';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

describe('version gating across sources and ETags', () => {
  it('the same version with another ETag: no notification, the snapshot object and status are kept, the new ETag is sent next', async () => {
    const bodies: Array<[number, string]> = [
      [1, '"a"'],
      [1, '"b"'],
      [1, '"b"'],
    ];
    const { client, requests } = harness(
      () => {
        const [version, etag] = bodies.shift() ?? [1, '"b"'];
        return jsonResponse(200, snapshotOf(version, { a: 1 }), { etag });
      },
      { pollInterval: 1000 },
    );
    const listener = vi.fn();
    client.subscribe(listener);
    await vi.advanceTimersByTimeAsync(0);
    const details = client.getDetails('a');
    const status = client.getStatus();
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests[1]!.headers['if-none-match']).toBe('"a"');
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests[2]!.headers['if-none-match']).toBe('"b"');
    expect(listener).toHaveBeenCalledTimes(1);
    expect(client.getDetails('a')).toBe(details);
    expect(client.getStatus()).toBe(status);
    await client.close();
  });

  it('an older version after a newer one keeps the newer ETag for the next request', async () => {
    const bodies = [snapshotOf(5, { a: 5 }), snapshotOf(3, { a: 3 })];
    const { client, requests } = harness(
      () => {
        const body = bodies.shift() ?? snapshotOf(5, { a: 5 });
        return jsonResponse(200, body, { etag: `"snapshot-${body.version}"` });
      },
      { pollInterval: 1000 },
    );
    await vi.advanceTimersByTimeAsync(2000);
    expect(client.get('a')).toBe(5);
    expect(requests[2]!.headers['if-none-match']).toBe('"snapshot-5"');
    await client.close();
  });
});

describe('several sources in one tick: version gating, ready() source and the ETag kept', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
  it('bootstrap v3, a cached v5, a tab v6 while the fetch is in flight, then the network answers v5: v6 and its ETag stay', async () => {
    vi.stubGlobal('BroadcastChannel', BusChannel);
    const cache = createMemoryStorage();
    const keyFingerprint = fingerprint(CLIENT_KEY);
    cache.set(`flagplane:snapshot:${keyFingerprint}`, JSON.stringify({ format: 1, key: keyFingerprint, etag: '"c5"', snapshot: snapshotOf(5, { a: 'cache' }) }));
    let answer!: (reply: Reply) => void;
    const { client, requests, errors } = harness(() => new Promise<Reply>((resolve) => (answer = resolve)), {
      bootstrap: snapshotOf(3, { a: 'bootstrap' }),
      cache,
      syncTabs: true,
      pollInterval: 1000,
    });
    const ready = await client.ready();
    expect(ready).toEqual({ status: 'ready', source: 'bootstrap' });
    // The cached v5 replaced the bootstrap at once, and its ETag goes out with the first request.
    expect(client.get('a')).toBe('cache');
    await vi.advanceTimersByTimeAsync(0);
    expect(requests[0]!.headers['if-none-match']).toBe('"c5"');
    // Another tab of the same key shares v6 while our request is in flight.
    const otherTab = new BusChannel(`flagplane:${keyFingerprint}`);
    otherTab.postMessage({ snapshot: snapshotOf(6, { a: 'tab' }), etag: '"t6"' });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus()).toMatchObject({ source: 'tab', version: 6 });
    // A lagging edge answers v5: ignored, but it is still a successful fetch.
    answer(jsonResponse(200, snapshotOf(5, { a: 'network' }), { etag: '"n5"' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe('tab');
    expect(client.getStatus()).toMatchObject({ status: 'ready', source: 'tab', version: 6, error: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers['if-none-match']).toBe('"t6"');
    answer(response(304, '', { etag: '"t6"' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe('tab');
    expect(errors).toEqual([]);
    otherTab.close();
    await client.close();
  });

});
