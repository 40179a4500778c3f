import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client';
import type { ReadyResult } from '../../src/machine/client-state';
import { ConfigError, NetworkError } from '../../src/shared/errors';
import { fetchTransport } from '../../src/http/fetch-transport';
import { fingerprint } from '../../src/shared/fingerprint';
import type { HttpRequest } from '../../src/http/http-types';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import type { VisibilitySource } from '../../src/platform/index';
import { defaultScheduler } from '../../src/shared/scheduler';
import { BASE_URL, CLIENT_KEY, harness } from '../helpers/client-harness';
import { jsonResponse, snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Options that start nothing beyond the snapshot fetch: no events, no tabs, no cache. */
const quiet = { sdkKey: CLIENT_KEY, baseUrl: BASE_URL, events: false, syncTabs: false, persist: false, anonymousId: 'edge-test-id' };

/** An HttpRequest as the HTTP client builds it. */
function request(overrides: Partial<HttpRequest> = {}): HttpRequest {
  return {
    method: 'GET',
    url: `${BASE_URL}/sdk/v1/snapshot`,
    headers: { authorization: `Bearer ${CLIENT_KEY}` },
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('fetchTransport on odd fetch behaviour', () => {
  it('hands method, headers, body, keepalive and signal to fetch with cache no-store; header() ignores case; a 204 has an empty body', async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 204, headers: { ETaG: '"v9"', 'Retry-After': '3' } }));
    vi.stubGlobal('fetch', fetch);
    const signal = new AbortController().signal;
    const result = await fetchTransport(request({ method: 'POST', body: '{"x":1}', keepalive: true, signal, headers: { 'content-type': 'application/json' } }));
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe(`${BASE_URL}/sdk/v1/snapshot`);
    expect(init).toMatchObject({ method: 'POST', body: '{"x":1}', keepalive: true, cache: 'no-store', headers: { 'content-type': 'application/json' } });
    expect(init.signal).toBe(signal);
    if (result.kind !== 'response') throw new Error(`expected a response, got ${result.kind}`);
    expect(result.status).toBe(204);
    expect(result.body).toBe('');
    expect([result.header('etag'), result.header('ETAG'), result.header('retry-after'), result.header('x-missing')]).toEqual(['"v9"', '"v9"', '3', null]);
  });

  it('looks the global fetch up at call time, not at import', async () => {
    vi.stubGlobal('fetch', async () => new Response('late-bound', { status: 200 }));
    const result = await fetchTransport(request());
    expect(result).toMatchObject({ kind: 'response', status: 200, body: 'late-bound' });
  });

  it('an AbortError DOMException nobody asked for (the browser cancelled it) is a network error, not a silent abort', async () => {
    const cause = new DOMException('The user aborted a request.', 'AbortError');
    vi.stubGlobal('fetch', async () => {
      throw cause;
    });
    expect(await fetchTransport(request())).toEqual({ kind: 'network-error', cause });
  });

  it('a rejection after our own abort is an abort, whatever it is (TypeError, DOMException)', async () => {
    for (const thrown of [new TypeError('Failed to fetch'), new DOMException('aborted', 'AbortError')]) {
      const controller = new AbortController();
      vi.stubGlobal('fetch', async () => {
        controller.abort();
        throw thrown;
      });
      expect(await fetchTransport(request({ signal: controller.signal }))).toEqual({ kind: 'aborted' });
    }
  });

  it('a body that fails midway is a network error carrying the stream error, not a truncated response', async () => {
    const cause = new TypeError('terminated: other side closed');
    vi.stubGlobal('fetch', async () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"schemaVersion":1,"vers'));
          controller.error(cause);
        },
      });
      return new Response(body, { status: 200, headers: { etag: '"v1"' } });
    });
    const result = await fetchTransport(request());
    expect(result).toEqual({ kind: 'network-error', cause });
  });

  it('without a global fetch (a runtime that has none): every fetch is a reported NetworkError, retried; createClient does not throw', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('fetch', undefined);
    const errors: unknown[] = [];
    const client = createClient({ ...quiet, scheduler: { ...defaultScheduler, random: () => 0 }, onError: (error) => errors.push(error) });
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect((errors[0] as NetworkError).message).toMatch(/^GET \/sdk\/v1\/snapshot failed: /);
    expect((errors[0] as NetworkError).cause).toBeInstanceOf(TypeError);
    // The first retry waits 1 s (jitter 0).
    await vi.advanceTimersByTimeAsync(1000);
    expect(errors).toHaveLength(2);
    expect(client.get('anything', 'fallback')).toBe('fallback');
    await client.close();
  });
});

describe('option validation: createClient throws a ConfigError, and only that', () => {
  const numeric = ['pollInterval', 'readyTimeout', 'requestTimeout', 'flushAt', 'flushInterval'] as const;
  const badNumbers: Array<[string, unknown]> = [
    ['a numeric string', '1000'],
    ['an empty string', ''],
    ['a boolean', true],
    ['null', null],
    ['a bigint', 10n],
    ['an object', { valueOf: () => 1000 }],
    ['a Number object', Object(1000)],
    ['an array', [1000]],
    ['a negative number', -1],
    ['-Infinity', -Infinity],
    ['Infinity', Infinity],
    ['NaN', Number.NaN],
  ];
  for (const name of numeric) {
    it.each(badNumbers)(`${name} given %s is a ConfigError naming ${name}`, (_label, value) => {
      const create = () => createClient({ ...quiet, [name]: value } as never);
      expect(create).toThrow(ConfigError);
      expect(create).toThrow(new RegExp(`^${name} must be a finite number >= 0`));
    });
  }

  it('zero, fractions, -0 and huge finite numbers are accepted for every numeric option', async () => {
    for (const value of [0, 0.5, -0, Number.MAX_VALUE]) {
      const options = Object.fromEntries(numeric.map((name) => [name, value]));
      const client = createClient({ ...quiet, ...options, transport: () => new Promise(() => undefined) });
      await client.close();
    }
  });

  it.each([
    ['8 characters', `svc_sdk_client_${'a'.repeat(8)}`, true],
    ['128 characters', `svc_sdk_server_${'Z'.repeat(128)}`, true],
    ['7 characters', `svc_sdk_client_${'a'.repeat(7)}`, false],
    ['129 characters', `svc_sdk_client_${'a'.repeat(129)}`, false],
    ['a trailing newline', `${CLIENT_KEY}\n`, false],
    ['a leading space', ` ${CLIENT_KEY}`, false],
    ['a dot', 'svc_sdk_client_abc.defgh', false],
    ['non-ASCII letters', 'svc_sdk_client_abcdéfgh', false],
    ['an uppercase prefix', 'SVC_SDK_CLIENT_abcdefgh', false],
    ['a String object', Object(CLIENT_KEY), false],
  ])('an sdkKey with %s: accepted %s', async (_label, sdkKey, accepted) => {
    const create = () => createClient({ ...quiet, sdkKey, transport: () => new Promise(() => undefined) } as never);
    if (!accepted) {
      expect(create).toThrow(ConfigError);
      expect(create).toThrow(/^sdkKey must be svc_sdk_client_ or svc_sdk_server_ then 8 to 128 letters, digits, _ or - \(got /);
      return;
    }
    await create().close();
  });

  // docs/client.md, Errors: a ConfigError says what the option must be, in words, and what it got.
  const messageOf = (options: object) => {
    try {
      createClient({ ...quiet, ...options, transport: () => new Promise(() => undefined) } as never);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('createClient did not throw');
  };

  it.each([
    ['a missing baseUrl', { baseUrl: undefined }, 'baseUrl is required'],
    ['a null sdkKey', { sdkKey: null }, 'sdkKey is required'],
    ['a baseUrl without a scheme', { baseUrl: 'localhost:8787' }, 'baseUrl must be http(s)://host[/path] (got "localhost:8787")'],
    ['a baseUrl with a query', { baseUrl: 'https://flags.test/?env=1' }, 'baseUrl must be http(s)://host[/path] (got "https://flags.test/?env=1")'],
    ['a baseUrl that is a number', { baseUrl: 8787 }, 'baseUrl must be http(s)://host[/path] (got number)'],
    ['an ftp streamUrl', { streamUrl: 'ftp://x.test' }, 'streamUrl must be ws(s):// or http(s)://host[/path] (got "ftp://x.test")'],
    ['a short sdkKey', { sdkKey: 'abc' }, 'sdkKey must be svc_sdk_client_ or svc_sdk_server_ then 8 to 128 letters, digits, _ or - (got "abc")'],
  ])('%s: the message says what is expected and what was received', (_label, options, message) => {
    expect(messageOf(options)).toBe(message);
  });

  it('a long value is cut to 40 characters; an sdkKey shows its first 15 only, so a server key never reaches a log', () => {
    expect(messageOf({ baseUrl: `flags.test/${'p'.repeat(100)}` })).toBe(`baseUrl must be http(s)://host[/path] (got "flags.test/${'p'.repeat(29)}")`);
    const secret = 'svc_sdk_server_THE_SECRET_PART_0001';
    const message = messageOf({ sdkKey: `${secret}\n` });
    expect(message).toMatch(/\(got "svc_sdk_server_"\)$/);
    expect(message).not.toContain('SECRET');
    // Control characters are escaped, as JSON strings: a trailing newline shows.
    expect(messageOf({ baseUrl: 'https://flags.test\n' })).toBe('baseUrl must be http(s)://host[/path] (got "https://flags.test\\n")');
  });

  it('options that are not an object (null, a string, a number) are a ConfigError about the sdkKey', () => {
    for (const options of [null, undefined, 'svc_sdk_client_test_key_0001', 42]) {
      expect(() => createClient(options as never)).toThrow(ConfigError);
    }
  });

  it('unknown options are ignored (no throw, no effect on the request)', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests, errors } = harness(server.handler, { pollIntervall: 5, baseURL: 'https://elsewhere.test', sdk_key: 'x' } as never);
    await client.ready();
    expect(requests[0]!.url).toBe(`${BASE_URL}/sdk/v1/snapshot`);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a baseUrl with a path prefix and trailing slashes keeps the prefix and drops the slashes', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { baseUrl: 'https://flags.test/edge/eu///' });
    await client.ready();
    expect(requests[0]!.url).toBe('https://flags.test/edge/eu/sdk/v1/snapshot');
    await client.close();
  });

  // Was a bug: PATTERNS.baseUrl (src/options.ts) only checks `^https?://[^/]`. A baseUrl fetch
  // cannot use, or one whose query or fragment swallows the route, passes createClient; every
  // request then fails (as a NetworkError, retried for ever) or goes to the wrong URL.
  const unusableBaseUrls: Array<[string, string]> = [
    ['credentials (fetch refuses such a URL)', 'https://user:secret@flags.test'],
    ['a space in the host (not a URL)', 'https://flags .test'],
    ['an unclosed IPv6 bracket (not a URL)', 'https://[::1'],
    ['a query (the route lands in the query: GET /?x=1/sdk/v1/snapshot)', 'https://flags.test/?x=1'],
    ['a fragment (the route is dropped: GET /)', 'https://flags.test#edge'],
  ];
  for (const [label, baseUrl] of unusableBaseUrls) {
    it(`a baseUrl with ${label} is a ConfigError from createClient`, async () => {
      const server = snapshotServer(snapshotOf(1, { a: 1 }));
      let client: ReturnType<typeof createClient> | undefined;
      try {
        expect(() => {
          client = createClient({ ...quiet, baseUrl, transport: async (request) => server.handler(request) as never });
        }).toThrow(ConfigError);
      } finally {
        await client?.close();
      }
    });
  }

  it('a baseUrl with a path keeps it: the routes go under it', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { baseUrl: 'https://flags.test/edge/' });
    await client.ready();
    expect(new URL(requests[0]!.url).pathname).toBe('/edge/sdk/v1/snapshot');
    await client.close();
  });

  // Was a bug: options whose shape is never checked make createClient throw a TypeError (not a
  // ConfigError) from deep inside.
  const wrongShapes: Array<[string, Record<string, unknown>]> = [
    ['a scheduler without methods (TypeError: scheduler.clearTimeout is not a function)', { scheduler: {} }],
    ['a visibilitySource without subscribe (TypeError: visibility.subscribe is not a function)', { visibilitySource: { isVisible: () => true } }],
    ['an onlineSource that is a number (TypeError: online.subscribe is not a function)', { onlineSource: 5 }],
  ];
  for (const [label, extra] of wrongShapes) {
    it(`${label} is a ConfigError`, async () => {
      let client: ReturnType<typeof createClient> | undefined;
      let thrown: unknown;
      try {
        client = createClient({ ...quiet, ...extra } as never);
      } catch (error) {
        thrown = error;
      }
      await client?.close();
      expect(thrown).toBeInstanceOf(ConfigError);
    });
  }

  it('a transport that is not a function is an adapter failing at each request: a NetworkError naming it, through onError', async () => {
    const errors: unknown[] = [];
    const client = createClient({ ...quiet, transport: 'fetch' as never, onError: (error) => errors.push(error) });
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
    await client.close();
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect(String((errors[0] as Error).message)).toMatch(/transport is not a function/);
  });

  it('a createClient that fails on a bad onlineSource leaves no subscription to the visibilitySource behind', () => {
    // Was a bug: watchActivity (src/platform/activity.ts) subscribes to visibility before it touches the
    // online source; when that throws, createClient throws and the visibility subscription
    // (and, with events on, the event sender's pagehide/visibility listeners) stay live.
    const live = new Set<() => void>();
    const visibilitySource: VisibilitySource = {
      isVisible: () => true,
      subscribe: (listener) => {
        const entry = () => listener(true);
        live.add(entry);
        return () => void live.delete(entry);
      },
    };
    expect(() => createClient({ ...quiet, visibilitySource, onlineSource: {} as never })).toThrow(ConfigError);
    expect(live.size).toBe(0);
  });
});

describe('tab sync with a BroadcastChannel that misbehaves', () => {
  /** A BroadcastChannel whose postMessage throws, as it does for an uncloneable message or a closed channel. */
  class ThrowingChannel {
    static posts = 0;
    onmessage: ((event: MessageEvent) => void) | null = null;
    constructor(readonly name: string) {}
    postMessage(): void {
      ThrowingChannel.posts++;
      throw new DOMException('The object could not be cloned.', 'DataCloneError');
    }
    close(): void {}
  }

  it('a postMessage that throws (DataCloneError, InvalidStateError) breaks neither refresh(), ready() nor polling', async () => {
    // Was a bug: client.ts runs the `persist` effect as `persist?.(effect); return tabs?.publish(effect)`
    // and tab-sync.ts publishes with a bare `channel.postMessage(message)`. The throw escapes
    // dispatch(), so the effects after `persist` never run: `resolve-ready` (ready() then
    // never settles, not even at readyTimeout, since the status is already `ready`) and the
    // `poll-due` timer (polling stops for good). refresh() rejects; at start-up the same throw
    // is an unhandled rejection.
    vi.useFakeTimers();
    ThrowingChannel.posts = 0;
    vi.stubGlobal('BroadcastChannel', ThrowingChannel);
    let first = true;
    const server = snapshotServer(snapshotOf(1, { a: 'v1' }));
    // The first fetch hangs, so the one that throws is refresh()'s, whose caller sees the outcome.
    const { client, requests } = harness(
      (request) => {
        if (!first) return server.handler(request);
        first = false;
        return 'hang';
      },
      { syncTabs: true, pollInterval: 1000, readyTimeout: 3000 },
    );
    const ready: ReadyResult[] = [];
    void client.ready().then((result) => ready.push(result));
    let refreshOutcome = 'pending';
    await client.refresh().then(
      () => (refreshOutcome = 'resolved'),
      (error: unknown) => (refreshOutcome = `rejected: ${String(error)}`),
    );
    // Past readyTimeout, and three poll intervals.
    await vi.advanceTimersByTimeAsync(3000);
    const seen = { value: client.get('a'), refreshOutcome, ready, requests: requests.length };
    await client.close();
    expect(ThrowingChannel.posts).toBeGreaterThanOrEqual(1);
    // Before the fix: { value: 'v1', refreshOutcome: 'rejected: DataCloneError: …', ready: [], requests: 2 }.
    expect(seen).toEqual({ value: 'v1', refreshOutcome: 'resolved', ready: [{ status: 'ready', source: 'network' }], requests: 5 });
  });

  it('a message that is not a snapshot, or of another schema, changes nothing and reports nothing', async () => {
    vi.useFakeTimers();
    const channels: Array<{ onmessage: ((event: MessageEvent) => void) | null }> = [];
    vi.stubGlobal(
      'BroadcastChannel',
      class {
        onmessage: ((event: MessageEvent) => void) | null = null;
        constructor() {
          channels.push(this);
        }
        postMessage() {}
        close() {}
      },
    );
    const server = snapshotServer(snapshotOf(2, { a: 'net' }));
    const { client, errors } = harness(server.handler, { syncTabs: true });
    await client.ready();
    const before = client.getStatus();
    const deliver = (data: unknown) => channels[0]!.onmessage?.({ data } as MessageEvent);
    for (const data of [
      undefined,
      null,
      'snapshot',
      42,
      [snapshotOf(9, { a: 'array' })],
      { snapshot: { ...snapshotOf(9, { a: 'schema 2' }), schemaVersion: 2 }, etag: null },
      { snapshot: snapshotOf(9, { a: 'etag object' }), etag: { toString: () => 'x' } },
      { snapshot: { ...snapshotOf(9, { a: 'float' }), version: 9.5 }, etag: null },
      { snapshot: snapshotOf(1, { a: 'older' }), etag: '"older"' },
    ]) {
      expect(() => deliver(data)).not.toThrow();
    }
    expect(client.get('a')).toBe('net');
    expect(client.getStatus()).toBe(before);
    expect(errors).toEqual([]);
    await client.close();
  });
});

describe('the snapshot cache and its key fingerprint', () => {
  // Two well-formed client keys of two environments whose FNV-1a 32-bit hashes are equal
  // (found by a birthday search over ~10^5 keys of this form). The fingerprint was that one
  // hash; it is now 64 bits.
  const PROD_KEY = 'svc_sdk_client_prod_00187141';
  const STAGING_KEY = 'svc_sdk_client_stg_00469400';

  it('the two keys collide in 32 bits, and their 64-bit fingerprints differ', () => {
    expect(fingerprint(PROD_KEY).slice(0, 8)).toBe(fingerprint(STAGING_KEY).slice(0, 8));
    expect(fingerprint(PROD_KEY)).not.toBe(fingerprint(STAGING_KEY));
  });

  it('a client never serves another environment\'s snapshot from a shared cache, even when key fingerprints collide', async () => {
    // Was a bug: docs/client.md says of `storageKey`: "two environments never share an entry". The
    // entry's name and its `key` check are one 32-bit FNV-1a hash (src/shared/fingerprint.ts), so two
    // keys on one origin can share it; and version gating (src/machine/transition.ts) compares versions
    // across environments, so the staging client's own network snapshot (version 3) is
    // "older" than production's cached version 7 and is ignored for good. The same holds for
    // tab sync, whose channel name is the same fingerprint (and tab-sync.ts's comment says the
    // acceptance path "rejects ... another environment"; nothing checks environmentId).
    const memory = createMemoryStorage();
    const prod = harness(() => jsonResponse(200, snapshotOf(7, { banner: 'production' }, 'production'), { etag: '"p7"' }), {
      sdkKey: PROD_KEY,
      cache: memory,
    });
    await prod.client.ready();
    await prod.client.close();

    const staging = harness(() => jsonResponse(200, snapshotOf(3, { banner: 'staging' }, 'staging'), { etag: '"s3"' }), {
      sdkKey: STAGING_KEY,
      cache: memory,
    });
    await staging.client.refresh();
    const served = staging.client.get('banner');
    const status = staging.client.getStatus();
    await staging.client.close();
    expect(served).toBe('staging');
    expect(status).toMatchObject({ source: 'network', version: 3 });
  });
});
