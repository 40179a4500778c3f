import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, response, snapshotServer } from '../helpers/fake-transport';
import { harness, CLIENT_KEY, servedHarness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import type { HttpRequest, HttpResult, HttpTransport } from '../../src/http/http-types';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { fingerprint } from '../../src/shared/fingerprint';
import { switchableSource } from '../helpers/platform-source';
import { trackSettlements } from '../helpers/settlements';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { connectedFrame, createFakeTransport as createFakeSockets } from '../stream/harness';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

const source = switchableSource;

/** A storage whose reads wait until the test answers them. */
function deferredStorage() {
  const pending: Array<(value: string | null) => void> = [];
  const storage: StorageAdapter = {
    get: () => new Promise<string | null>((resolve) => pending.push(resolve)),
    set: () => undefined,
    remove: () => undefined,
  };
  return { storage, pending };
}

const isIdentity = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/identity';
const isSnapshot = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/snapshot';

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
    const { client, requests } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 1000 });
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

describe('close() with everything pending at once', () => {
  it('a fetch, an async cache read, the ready timeout and the request timeout: nothing is left, ready() settles once with closed', async () => {
    const cache = deferredStorage();
    const visible = source(true);
    const online = source(true);
    const { client, requests, errors } = harness(() => 'hang', {
      cache: cache.storage,
      visibilitySource: visible.visibility,
      onlineSource: online.online,
      readyTimeout: 5000,
      requestTimeout: 10_000,
    });
    const seen = trackSettlements(client.ready());
    const listener = vi.fn();
    client.subscribe(listener);
    await vi.advanceTimersByTimeAsync(10);
    expect(requests).toHaveLength(1);
    // ready-timeout and request timeout.
    expect(vi.getTimerCount()).toBe(2);
    expect(visible.listeners.size).toBe(1);
    expect(online.listeners.size).toBe(1);

    await client.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(visible.listeners.size).toBe(0);
    expect(online.listeners.size).toBe(0);
    expect(seen).toEqual([{ status: 'closed', source: null }]);

    // Listeners heard of the stop once; then they are dropped.
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener.mock.calls[0]![0].status.connection).toBe('stopped');

    // The cache answers after close: nothing changes, nobody hears of it.
    const record = { format: 1, key: fingerprint(CLIENT_KEY), etag: '"snapshot-3"', snapshot: snapshotOf(3, { a: 'cached' }) };
    cache.pending[0]!(JSON.stringify(record));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(client.get('a', 'default')).toBe('default');
    expect(client.getStatus()).toMatchObject({ status: 'initializing', connection: 'stopped', version: null });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(seen).toHaveLength(1);
  });

  it('a pending retry timer, after ready() timed out: close clears it and ready() does not settle again', async () => {
    const { client, requests } = harness(() => response(503, '', { 'retry-after': '30' }), { readyTimeout: 100 });
    const seen = trackSettlements(client.ready());
    await vi.advanceTimersByTimeAsync(100);
    expect(seen).toEqual([{ status: 'timeout', source: null }]);
    expect(vi.getTimerCount()).toBe(1);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(requests).toHaveLength(1);
    expect(seen).toHaveLength(1);
    expect(client.getStatus().status).toBe('failed');
  });

  it('close() twice, and ready() is the same promise before and after', async () => {
    const { client } = harness(() => 'hang');
    const first = client.ready();
    await client.close();
    await expect(client.close()).resolves.toBeUndefined();
    expect(client.ready()).toBe(first);
    await expect(first).resolves.toEqual({ status: 'closed', source: null });
  });

  it('a transport that ignores the signal and never answers, with no request timeout: close() and a pending refresh() still settle', async () => {
    const requests: HttpRequest[] = [];
    const transport: HttpTransport = (request) => (requests.push(request), new Promise<HttpResult>(() => undefined));
    const { client, errors } = harness(() => 'hang', { transport, requestTimeout: 0 });
    const refreshed = client.refresh();
    await client.close();
    await expect(refreshed).resolves.toBeUndefined();
    expect(requests.every((request) => request.signal.aborted)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(errors).toEqual([]);
  });
});

describe('close() with a catch-up, an overlay and a refresh in flight', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
  it('identify() during a stream catch-up, then close(): every promise settles, every request is aborted, nothing is reported or left', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    let hang = false;
    const sockets = createFakeSockets();
    const { client, requests, errors } = harness((request) => (hang ? 'hang' : server.handler(request)), {
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(sockets.transport),
      pollInterval: 600_000,
    });
    await client.ready();
    sockets.last.open();
    sockets.last.receive(connectedFrame(60_000));
    // An edge that lags: the catch-up fetch answers v1 (a 304), then the next one hangs.
    sockets.last.receive({ type: 'snapshot.updated', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    hang = true;
    await vi.advanceTimersByTimeAsync(250);
    expect(requests.at(-1)!.headers['flagplane-min-version']).toBe('2');
    const identified = client.identify('u-1', { plan: 'pro' });
    const refreshed = client.refresh();
    sockets.last.receive({ type: 'snapshot.updated', version: 3 });
    await vi.advanceTimersByTimeAsync(0);
    const settled: string[] = [];
    await Promise.all([
      client.close().then(() => settled.push('close')),
      identified.then(() => settled.push('identify')),
      refreshed.then(() => settled.push('refresh')),
    ]);
    expect(settled.sort()).toEqual(['close', 'identify', 'refresh']);
    expect(requests.filter((request) => !request.signal.aborted).every((request) => isSnapshot(request))).toBe(true);
    expect(requests.filter(isIdentity).map((request) => request.signal.aborted)).toEqual([true]);
    expect(requests.at(-1)!.signal.aborted).toBe(true);
    expect(sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(client.getStatus()).toMatchObject({ connection: 'stopped', version: 1 });
    expect(client.getContext()).toEqual({ userId: 'u-1', attributes: { plan: 'pro' }, segmentIds: [] });
    expect(errors).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
