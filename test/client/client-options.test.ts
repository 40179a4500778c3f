import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { snapshotServer } from '../helpers/fake-transport';
import { harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { trackSettlements } from '../helpers/settlements';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('huge but finite intervals', () => {
  it('pollInterval above the 2^31-1 ms timer limit does not poll every millisecond', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { pollInterval: 2 ** 31 });
    await vi.advanceTimersByTimeAsync(100);
    const made = requests.length;
    await client.close();
    // Accepted by resolveOptions as a finite number, then overflows the timer: ~100 requests.
    expect(made).toBe(1);
  });

  it('readyTimeout above the 2^31-1 ms timer limit does not time ready() out at once', async () => {
    const { client } = harness(() => 'hang', { readyTimeout: Number.MAX_SAFE_INTEGER, requestTimeout: 0 });
    const seen = trackSettlements(client.ready());
    await vi.advanceTimersByTimeAsync(1000);
    const before = [...seen];
    await client.close();
    // Before the fix: { status: 'timeout' } after 1 ms.
    expect(before).toEqual([]);
  });
});
