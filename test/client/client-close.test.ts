import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, response, snapshotServer } from '../helpers/fake-transport';
import { harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('close()', () => {
  it('before the first tick: aborts the first request, leaves no timer, reports nothing', async () => {
    const { client, requests, errors } = harness(() => 'hang');
    await client.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(errors).toEqual([]);
    expect(client.getStatus().connection).toBe('stopped');
  });

  it('while polling: clears the poll timer and makes no further request', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(2500);
    expect(requests).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(1);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(requests).toHaveLength(3);
  });

  it('during a backoff: clears the retry timer', async () => {
    const { client, requests } = harness(() => response(500));
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(2);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(requests).toHaveLength(1);
  });

  it('with a request in flight and a request timeout armed: aborts it and clears the timeout', async () => {
    const { client, requests, errors } = harness(() => 'hang', { requestTimeout: 5000 });
    await vi.advanceTimersByTimeAsync(100);
    await client.close();
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(errors).toEqual([]);
  });

  it('settles a pending refresh() and makes later refreshes no-ops', async () => {
    const { client, requests } = harness(() => 'hang');
    const pending = client.refresh();
    await client.close();
    await expect(pending).resolves.toBeUndefined();
    const before = requests.length;
    await client.refresh();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(requests).toHaveLength(before);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a response arriving after close is ignored', async () => {
    let answer!: (value: ReturnType<typeof jsonResponse>) => void;
    const { client } = harness(() => new Promise((resolve) => (answer = resolve)));
    await vi.advanceTimersByTimeAsync(0);
    await client.close();
    answer(jsonResponse(200, snapshotOf(1, { a: 'late' })));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a', 'default')).toBe('default');
  });
});
