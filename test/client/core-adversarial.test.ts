import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReadyResult } from '../../src/machine/client-state';
import { HttpError, NetworkError } from '../../src/shared/errors';
import type { HttpRequest, HttpResult, HttpTransport } from '../../src/http/http-types';
import type { OnlineSource, VisibilitySource } from '../../src/platform/index';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { jsonResponse, response, snapshotServer } from '../helpers/fake-transport';
import { createFakeTransport as createFakeSockets } from '../stream/harness';
import { CLIENT_KEY, harness } from '../helpers/client-harness';
import { fingerprint } from '../../src/shared/fingerprint';
import { servingFlag, snapshotOf } from '../helpers/snapshots';
import { switchableSource } from '../helpers/platform-source';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const source = switchableSource;

/** Records every settlement of a ready() promise. */
function track(promise: Promise<ReadyResult>) {
  const seen: Array<ReadyResult | { rejected: unknown }> = [];
  promise.then(
    (result) => seen.push(result),
    (rejected: unknown) => seen.push({ rejected }),
  );
  return seen;
}

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
    const seen = track(client.ready());
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
    const seen = track(client.ready());
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

describe('re-entrant calls from listeners and onError', () => {
  it('close() from a subscribe listener leaves no timer behind (no poll is armed after close)', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { pollInterval: 30_000 });
    client.subscribe(() => void client.close());
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    expect(requests).toHaveLength(1);
    // close() promises: "Clears every timer". The poll armed after it fires into a stopped machine.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('close() from onError (say on a 401) leaves no retry timer behind', async () => {
    let client!: ReturnType<typeof harness>['client'];
    const h = harness(() => response(401, '{"error":{"code":"unauthorized","message":"bad key"}}'), {
      onError: (error) => {
        if (error instanceof HttpError && error.status === 401) void client.close();
      },
    });
    client = h.client;
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('listeners that unsubscribe themselves or subscribe others during emit: each hears what it should, once', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, errors } = harness(server.handler, { pollInterval: 1000 });
    const calls: string[] = [];
    const unsubscribeOnce = client.subscribe(() => {
      calls.push('once');
      unsubscribeOnce();
    });
    client.subscribe(() => {
      calls.push('adder');
      if (calls.filter((call) => call === 'adder').length === 1) client.subscribe(() => calls.push('late'));
    });
    await vi.advanceTimersByTimeAsync(0);
    // The listener added during the emit hears from the next change on.
    expect(calls).toEqual(['once', 'adder']);
    server.publish(snapshotOf(2, { a: 2 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toEqual(['once', 'adder', 'adder', 'late']);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a listener that calls refresh() on every change causes no extra poll loop', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { pollInterval: 1000 });
    client.subscribe(() => void client.refresh());
    await vi.advanceTimersByTimeAsync(0);
    // The first snapshot notifies, the refresh answers 304 and notifies nobody.
    expect(requests).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(3);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('platform sources', () => {
  it('a source that reports its current state synchronously on subscribe does not crash createClient', () => {
    // Before the fix: ReferenceError "Cannot access 'activity' before initialization" out of createClient.
    const eager: OnlineSource = {
      isOnline: () => true,
      // Observable-style sources (a store with fireImmediately, a BehaviorSubject) call back at once.
      subscribe: (onChange) => (onChange(true), () => undefined),
    };
    let client: ReturnType<typeof harness>['client'] | undefined;
    expect(() => (client = harness(() => 'hang', { onlineSource: eager }).client)).not.toThrow();
    void client?.close();
  });

  it('going hidden/visible and offline/online repeatedly while a fetch is in flight: one request, never aborted, one poll after it', async () => {
    let answer!: (reply: HttpResult) => void;
    const visible = source(true);
    const online = source(true);
    const { client, requests, errors } = harness(() => new Promise<HttpResult>((resolve) => (answer = resolve)), {
      pollInterval: 1000,
      visibilitySource: visible.visibility,
      onlineSource: online.online,
      readyTimeout: 0,
    });
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 5; i++) {
      visible.set(false);
      visible.set(true);
      online.set(false);
      online.set(true);
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.signal.aborted).toBe(false);
    answer(jsonResponse(200, snapshotOf(1, { a: 1 }), { etag: '"snapshot-1"' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe(1);
    // The request timeout is cleared; only the next poll is armed.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('close() from a listener hearing `connecting` leaves no socket open (none is opened after close)', async () => {
    const net = source(false);
    const sockets = createFakeSockets();
    const { client } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, {
      onlineSource: net.online,
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(sockets.transport),
    });
    // An app that tears down its flag provider on a status change (an unmount, a route change).
    client.subscribe(({ status }) => {
      if (status.connection === 'connecting') void client.close();
    });
    net.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    // Every socket opened must have been closed, and no stream timer may remain.
    expect(sockets.sockets.filter((socket) => socket.closeCalls.length === 0)).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an unsubscribe of a platform source that throws does not make close() reject or skip its cleanup', async () => {
    const visibility: VisibilitySource = {
      isVisible: () => true,
      subscribe: () => () => {
        throw new Error('subscription already removed');
      },
    };
    const { client, requests } = harness(() => 'hang', { visibilitySource: visibility });
    const seen = track(client.ready());
    const closed = await client.close().then(
      () => 'resolved',
      (error: unknown) => `rejected: ${(error as Error).message}`,
    );
    await vi.advanceTimersByTimeAsync(0);
    // Before the fix: close() rejects, the request is not aborted, its timeout stays armed, and ready()
    // never settles (the resolve-ready effect comes after the throwing stop effect).
    expect(closed).toBe('resolved');
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(seen).toEqual([{ status: 'closed', source: null }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refresh() while offline makes no request ("No request while offline")', async () => {
    const online = source(false);
    const { client, requests } = harness(() => 'hang', { onlineSource: online.online });
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(0);
    void client.refresh();
    await vi.advanceTimersByTimeAsync(0);
    const made = requests.length;
    await client.close();
    expect(made).toBe(0);
  });
});

describe('reads with hostile keys and values', () => {
  it('symbols, numbers and non-string keys never throw and serve the fallback', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 })), { defaults: { a: 0 }, events: true });
    await client.ready();
    for (const key of [Symbol('x'), 42, null, undefined, {}, [], () => 1]) {
      expect(() => client.get(key as never)).not.toThrow();
      expect(client.get(key as never, 'fb')).toBe('fb');
      expect(() => client.getDetails(key as never)).not.toThrow();
    }
    await client.close();
  });

  it('defaults and fallbacks holding a BigInt or a cycle never make a read throw, with events on', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const big = 10n;
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { big: 1, cyclic: 'x' })), {
      defaults: { big, cyclic } as never,
      events: true,
      flushAt: 1,
    });
    expect(client.get('big')).toBe(big);
    await client.ready();
    // A type mismatch serves the default, which JSON cannot hold.
    expect(client.getDetails('big')).toMatchObject({ value: big, errorCode: 'TYPE_MISMATCH' });
    expect(client.get('cyclic')).toBe(cyclic);
    expect(client.get('missing', big as never)).toBe(big);
    expect(() => client.getAll()).not.toThrow();
    await client.close();
  });

  it('getAll() keeps a flag named __proto__ as a plain key and never turns it into the prototype', async () => {
    const snapshot = snapshotOf(1, { a: 1 });
    // JSON.parse makes `__proto__` an own key, as a server body would.
    const body = JSON.stringify(snapshot).replace('"flags":{', `"flags":{"__proto__":${JSON.stringify(servingFlag({ admin: true }))},`);
    const { client } = harness(() => response(200, body));
    await client.ready();
    expect(client.get('__proto__')).toEqual({ admin: true });
    const all = client.getAll();
    expect(Object.getPrototypeOf(all)).toBe(Object.prototype);
    expect((all as Record<string, unknown>).admin).toBeUndefined();
    expect(Object.keys(all).sort()).toEqual(['__proto__', 'a']);
    await client.close();
  });

  it('keys named like Object.prototype members are plain flags in get() and getAll()', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { constructor: 'c', toString: 't', hasOwnProperty: 'h' })));
    await client.ready();
    expect(client.get('constructor')).toBe('c');
    expect(client.getAll()).toEqual({ constructor: 'c', toString: 't', hasOwnProperty: 'h' });
    await client.close();
  });
});

describe('setOverrides with odd input', () => {
  it('null, undefined and undefined values clear or skip, never throw', async () => {
    const { client, errors } = harness(() => jsonResponse(200, snapshotOf(1, { a: 'served' })));
    await client.ready();
    client.setOverrides({ a: 'over' });
    expect(client.get('a')).toBe('over');
    client.setOverrides(null as never);
    expect(client.get('a')).toBe('served');
    client.setOverrides({ a: 'over' });
    client.setOverrides(undefined as never);
    expect(client.get('a')).toBe('served');
    client.setOverrides({ a: undefined } as never);
    expect(client.getDetails('a').reason).not.toBe('OVERRIDE');
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a non-object (a string, an array) is reported through onError instead of becoming overrides of keys "0", "1"…', async () => {
    const { client, errors } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 })));
    await client.ready();
    client.setOverrides('on' as never);
    const all = client.getAll();
    await client.close();
    // Before the fix: { 0: 'o', 1: 'n', a: 1 } and no error.
    expect(all).toEqual({ a: 1 });
    expect(errors).toHaveLength(1);
  });

  it('an override of another JSON type than the default does not make a typed get() lie about its type', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { 'new-checkout': true })), { defaults: { 'new-checkout': false } });
    await client.ready();
    // A QA panel that sends strings: 'false' is truthy.
    client.setOverrides({ 'new-checkout': 'false' });
    const served = client.get('new-checkout');
    await client.close();
    expect(typeof served).toBe('boolean');
  });
});

describe('transports that break the contract', () => {
  it('a transport that throws synchronously is a NetworkError, retried with backoff', async () => {
    let calls = 0;
    const transport: HttpTransport = () => {
      calls++;
      throw new Error('sync boom');
    };
    const { client, errors } = harness(() => 'hang', { transport });
    await vi.advanceTimersByTimeAsync(0);
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect((errors[0] as NetworkError & { cause: Error }).cause.message).toBe('sync boom');
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a transport that returns a plain value rather than a promise works', async () => {
    const transport = (() => jsonResponse(200, snapshotOf(1, { a: 'plain' }))) as unknown as HttpTransport;
    const { client } = harness(() => 'hang', { transport });
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(client.get('a')).toBe('plain');
    await client.close();
  });

  it('a transport that answers after its abort: the late answer is ignored and not reported', async () => {
    const answers: Array<(reply: HttpResult) => void> = [];
    const transport: HttpTransport = () => new Promise<HttpResult>((resolve) => answers.push(resolve));
    const { client, errors } = harness(() => 'hang', { transport, requestTimeout: 0 });
    await vi.advanceTimersByTimeAsync(0);
    const refreshed = client.refresh();
    answers[1]!(jsonResponse(200, snapshotOf(2, { a: 'second' })));
    await refreshed;
    answers[0]!(jsonResponse(200, snapshotOf(9, { a: 'first, aborted' })));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe('second');
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a transport that resolves with undefined: refresh() still resolves, the failure is reported and polling goes on', async () => {
    let calls = 0;
    const transport = (async () => {
      calls++;
      // A custom transport with a missing `return` in one branch.
      return calls === 2 ? undefined : jsonResponse(200, snapshotOf(calls, { a: calls }));
    }) as unknown as HttpTransport;
    const { client, errors } = harness(() => 'hang', { transport, pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe(1);
    // Before the fix: refresh() rejects with "Cannot read properties of undefined (reading 'kind')", nothing
    // is reported, and the machine stays `in-flight` forever: no poll, no retry.
    const outcome = await client.refresh().then(
      () => 'resolved',
      (error: unknown) => `rejected: ${(error as Error).message}`,
    );
    await vi.advanceTimersByTimeAsync(5000);
    const callsAfter = calls;
    await client.close();
    expect(outcome).toBe('resolved');
    expect(errors).toHaveLength(1);
    expect(callsAfter).toBeGreaterThan(2);
  });
});

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

describe('a cache holding garbage', () => {
  const KEY = 'garbage-key';
  it.each([
    ['a number', '42'],
    ['null', 'null'],
    ['an array', '[1,2,3]'],
    ['a record without snapshot', '{"format":1}'],
    ['a record of another format', '{"format":2,"snapshot":{}}'],
  ])('%s is a miss: no error, defaults served, the network decides', async (_name, raw) => {
    const cache = createMemoryStorage({ [KEY]: raw });
    const { client, errors, requests } = harness(() => jsonResponse(200, snapshotOf(1, { a: 'net' })), { cache, storageKey: KEY, defaults: { a: 'd' } });
    expect(client.get('a')).toBe('d');
    expect(client.getStatus().status).toBe('initializing');
    expect(requests[0]!.headers['if-none-match']).toBeUndefined();
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(errors).toEqual([]);
    await client.close();
  });

  it('an old cached version never replaces a newer bootstrap, and its ETag is not sent', async () => {
    const memory = createMemoryStorage();
    const seed = harness(() => jsonResponse(200, snapshotOf(2, { a: 'cached v2' }), { etag: '"snapshot-2"' }), { cache: memory });
    await seed.client.ready();
    await seed.client.close();
    const { client, requests } = harness(() => 'hang', { cache: memory, bootstrap: snapshotOf(7, { a: 'boot v7' }) });
    expect(client.get('a')).toBe('boot v7');
    expect(client.getStatus()).toMatchObject({ source: 'bootstrap', version: 7 });
    expect(requests[0]!.headers['if-none-match']).toBeUndefined();
    await client.close();
  });

  it('a cached record whose ETag is not a string is not sent as If-None-Match', async () => {
    const memory = createMemoryStorage();
    const seed = harness(() => jsonResponse(200, snapshotOf(2, { a: 'cached' }), { etag: '"snapshot-2"' }), { cache: memory });
    await seed.client.ready();
    await seed.client.close();
    const [key, raw] = [...memory.entries][0]!;
    const record = JSON.parse(raw!);
    record.etag = { not: 'a string' };
    memory.set(key!, JSON.stringify(record));
    const { client, requests } = harness(() => 'hang', { cache: memory });
    const header: unknown = requests[0]!.headers['if-none-match'];
    const served = client.get('a');
    await client.close();
    // Before the fix: the object itself goes out as the header value (tab sync checks this, the cache does not).
    expect(header).toBeUndefined();
    // The record's snapshot is still served: only its ETag is dropped.
    expect(served).toBe('cached');
  });
});

describe('Retry-After with odd values', () => {
  // Jitter is 0 in the harness: the first retry is due after exactly 1000 ms.
  it.each([
    ['negative', '-30', 1000],
    ['zero', '0', 1000],
    ['shorter than the backoff', '0.5', 1000],
    ['fractional seconds', '2.5', 2500],
    ['not a number nor a date', 'soon', 1000],
    ['an HTTP date in the past', 'Wed, 21 Oct 2015 07:28:00 GMT', 1000],
  ])('%s (%s): retry after %i ms', async (_name, value, delay) => {
    const { client, requests } = harness(() => response(503, '', { 'retry-after': value }));
    await vi.advanceTimersByTimeAsync(delay - 1);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('an HTTP date in the future is honoured on 429', async () => {
    const at = new Date(Date.now() + 90_000).toUTCString();
    const { client, requests } = harness(() => response(429, '', { 'retry-after': at }));
    await vi.advanceTimersByTimeAsync(80_000);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('Retry-After on a 500 is ignored', async () => {
    const { client, requests } = harness(() => response(500, '', { 'retry-after': '3600' }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('a huge Retry-After (over the 24.8-day timer limit) does not turn into an immediate retry loop', async () => {
    const { client, requests } = harness(() => response(503, '', { 'retry-after': String(40 * 24 * 3600) }));
    await vi.advanceTimersByTimeAsync(100);
    const made = requests.length;
    await client.close();
    // Platform timers (Node, browsers, fake timers alike) fire after 1 ms above 2^31-1 ms:
    // today about one request per millisecond.
    expect(made).toBe(1);
  });
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
    const seen = track(client.ready());
    await vi.advanceTimersByTimeAsync(1000);
    const before = [...seen];
    await client.close();
    // Before the fix: { status: 'timeout' } after 1 ms.
    expect(before).toEqual([]);
  });
});
