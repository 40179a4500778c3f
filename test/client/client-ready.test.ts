import { describe, expect, it, vi } from 'vitest';
import { NetworkError, TimeoutError } from '../../src/shared/errors';
import type { ReadyResult } from '../../src/machine/client-state';
import { jsonResponse, response } from '../helpers/fake-transport';
import { harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

/** Records when (in fake ms) the promise settled and how. */
function track(promise: Promise<ReadyResult>) {
  const start = Date.now();
  const seen: { at?: number; result?: ReadyResult; rejected?: unknown } = {};
  promise.then(
    (result) => Object.assign(seen, { at: Date.now() - start, result }),
    (rejected: unknown) => Object.assign(seen, { at: Date.now() - start, rejected }),
  );
  return seen;
}

describe('ready()', () => {
  it('resolves on the first network success', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 })));
    const seen = track(client.ready());
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual({ at: 0, result: { status: 'ready', source: 'network' } });
    await client.close();
  });

  it('resolves at once with a bootstrap snapshot', async () => {
    const { client } = harness(() => 'hang', { bootstrap: snapshotOf(1, { a: 'boot' }) });
    const seen = track(client.ready());
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual({ at: 0, result: { status: 'ready', source: 'bootstrap' } });
    expect(client.get('a')).toBe('boot');
    await client.close();
  });

  it.each([
    ['network down', () => ({ kind: 'network-error', cause: new TypeError('fetch failed') }) as const],
    ['DNS failure', () => ({ kind: 'network-error', cause: Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }) }) as const],
    ['500s', () => response(500, '{"error":{"code":"internal","message":"boom"}}')],
    ['a transport that throws', () => Promise.reject(new Error('broken adapter'))],
    ['a hanging server (request timeouts)', () => 'hang' as const],
  ])('resolves with timeout at readyTimeout and never rejects: %s', async (_name, reply) => {
    const { client, errors } = harness(reply as never, { readyTimeout: 3000, requestTimeout: 1000 });
    const seen = track(client.ready());
    await vi.advanceTimersByTimeAsync(2999);
    expect(seen.result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual({ at: 3000, result: { status: 'timeout', source: null } });
    expect(client.getStatus().status).toBe('failed');
    expect(errors.length).toBeGreaterThan(0);
    expect(client.get('anything', 'fallback')).toBe('fallback');
    await client.close();
  });

  it('becomes ready after a timeout when a later fetch succeeds', async () => {
    let up = false;
    const { client } = harness(() => (up ? jsonResponse(200, snapshotOf(1, { a: 1 })) : response(500)), { readyTimeout: 500 });
    const seen = track(client.ready());
    await vi.advanceTimersByTimeAsync(500);
    expect(seen.result?.status).toBe('timeout');
    up = true;
    await vi.advanceTimersByTimeAsync(2000);
    expect(client.getStatus().status).toBe('ready');
    expect(client.get('a')).toBe(1);
    await client.close();
  });

  it('resolves with interrupted at once when the app’s framework ends the fetch (Next.js prerendering): no error, no retry, polling goes on', async () => {
    const dynamicUsage = Object.assign(new Error('used no-store fetch'), { digest: 'DYNAMIC_SERVER_USAGE' });
    let rendering = true;
    let fetches = 0;
    const { client, errors } = harness(() => (fetches++, rendering ? { kind: 'aborted', cause: dynamicUsage } : jsonResponse(200, snapshotOf(1, { a: 1 }))), {
      readyTimeout: 5000,
      pollInterval: 30_000,
    });
    const seen = track(client.ready());
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual({ at: 0, result: { status: 'interrupted', source: null } });
    expect(client.getStatus()).toMatchObject({ status: 'initializing', error: null });
    // A network failure would be retried within a second or two; this waits for the next poll.
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fetches).toBe(1);
    expect(client.getStatus().status).toBe('initializing');
    rendering = false;
    await vi.advanceTimersByTimeAsync(1);
    expect(fetches).toBe(2);
    expect(client.getStatus()).toMatchObject({ status: 'ready', version: 1 });
    expect(errors).toEqual([]);
    await client.close();
  });

  it('resolves with closed when closed before anything arrived', async () => {
    const { client } = harness(() => 'hang');
    const seen = track(client.ready());
    await client.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.result).toEqual({ status: 'closed', source: null });
  });
});

describe('requestTimeout', () => {
  it('aborts the request and reports a TimeoutError that names the route', async () => {
    const { client, requests, errors } = harness(() => 'hang', { requestTimeout: 2000 });
    await vi.advanceTimersByTimeAsync(1999);
    expect(errors).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(errors[0]).toBeInstanceOf(TimeoutError);
    expect(errors[0]!.message).toBe('GET /sdk/v1/snapshot timed out after 2000 ms');
    await client.close();
  });

  it('still times out when the transport ignores the abort signal', async () => {
    const { client, errors } = harness(() => new Promise(() => undefined), { requestTimeout: 500 });
    await vi.advanceTimersByTimeAsync(500);
    expect(errors[0]).toBeInstanceOf(TimeoutError);
    await client.close();
  });

  it('0 disables the timeout', async () => {
    const { client, requests, errors } = harness(() => 'hang', { requestTimeout: 0, readyTimeout: 1000 });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.signal.aborted).toBe(false);
    expect(errors).toEqual([]);
    await client.close();
    expect(requests[0]!.signal.aborted).toBe(true);
  });

  it('a network error is a NetworkError carrying its cause', async () => {
    const cause = new TypeError('fetch failed');
    const { client, errors } = harness(() => ({ kind: 'network-error', cause }));
    await vi.advanceTimersByTimeAsync(0);
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect((errors[0] as NetworkError & { cause: unknown }).cause).toBe(cause);
    await client.close();
  });
});
