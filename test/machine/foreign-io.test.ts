import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientOptions } from '../../src/options';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { harness } from '../helpers/client-harness';
import { jsonResponse, type Reply } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';

/**
 * Cloudflare Workers: every I/O object belongs to the request that made it, and touching it
 * from another one throws. Here every `abort()` and every socket `close()` throws, as they do
 * there from a later request; the client's methods must not.
 */
afterEach(() => {
  vi.restoreAllMocks();
});

/** A client whose requests wait until `answer(index, version)`; every `abort()` throws. */
function foreignClient(extra: Partial<ClientOptions> = {}) {
  vi.spyOn(AbortController.prototype, 'abort').mockImplementation(() => {
    throw new Error('Cannot perform I/O on behalf of a different request');
  });
  const pending: Array<(reply: Reply) => void> = [];
  const h = harness(() => new Promise<Reply>((settle) => pending.push(settle)), { requestTimeout: 0, ...extra });
  const answer = (index: number, version: number) => pending[index]!(jsonResponse(200, snapshotOf(version, { a: version }), { etag: `"v${version}"` }));
  return { ...h, pending, answer };
}

describe('I/O another request owns (Cloudflare Workers)', () => {
  it('refresh() over a fetch in flight: no throw, the newer fetch counts, the older one is ignored, no onError', async () => {
    const { client, errors, pending, answer } = foreignClient();
    expect(pending).toHaveLength(1);
    let refreshed!: Promise<void>;
    expect(() => (refreshed = client.refresh())).not.toThrow();
    expect(pending).toHaveLength(2);
    answer(1, 2);
    await refreshed;
    // The superseded fetch answers late, with an older version: ignored.
    answer(0, 1);
    await Promise.resolve();
    expect(client.get('a', 0)).toBe(2);
    expect(client.getStatus()).toMatchObject({ status: 'ready', version: 2, error: null });
    expect(errors).toEqual([]);
    await client.close();
  });

  it('refresh() and close() after the fetch settled, and close() over a fetch in flight: nothing aborted, nothing thrown or reported', async () => {
    const { client, errors, answer } = foreignClient();
    answer(0, 1);
    await client.ready();
    const aborts = vi.mocked(AbortController.prototype.abort);
    const before = aborts.mock.calls.length;
    // The first request settled: refresh() leaves its controller alone.
    const refreshed = client.refresh();
    expect(aborts.mock.calls.length).toBe(before);
    // Closing while the refresh is in flight: its abort throws, close() does not.
    await expect(client.close()).resolves.toBeUndefined();
    await expect(refreshed).resolves.toBeUndefined();
    expect(errors).toEqual([]);
    expect(client.getStatus().connection).toBe('stopped');
  });

  it('close() with a stream whose socket throws on close: no throw, no onError', async () => {
    const { client, errors, answer } = foreignClient({
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(() => ({
        send() {},
        close() {
          throw new Error('Cannot perform I/O on behalf of a different request');
        },
      })),
    });
    answer(0, 1);
    await client.ready();
    expect(client.getStatus().connection).toBe('connecting');
    await expect(client.close()).resolves.toBeUndefined();
    expect(errors).toEqual([]);
  });
});
