import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchTransport } from '../../src/http/fetch-transport';
import type { HttpRequest } from '../../src/http/http-types';
import { createClient } from '../../src/client';
import { NetworkError } from '../../src/shared/errors';
import { defaultScheduler } from '../../src/shared/scheduler';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';

afterEach(() => {
  vi.unstubAllGlobals();
});

const ETAG = '"snapshot-4"';

function request(headers: Record<string, string> = {}): HttpRequest {
  return {
    method: 'GET',
    url: 'https://flags.test/sdk/v1/snapshot',
    headers: { authorization: 'Bearer svc_sdk_client_test_key_0001', ...headers },
    signal: new AbortController().signal,
  };
}

/** Stubs `fetch` with one answer and records what it was asked. */
function stubFetch(status: number, etag: string, body = '{"version":4}') {
  const calls: Array<{ url: string; init: RequestInit & { headers: Record<string, string> } }> = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit & { headers: Record<string, string> }) => {
    calls.push({ url, init });
    return new Response(status === 304 ? null : body, { status, headers: { etag } });
  });
  return calls;
}

/** Options that start nothing beyond the snapshot fetch: no events, no tabs, no cache. */
const quiet = { sdkKey: CLIENT_KEY, baseUrl: BASE_URL, events: false, syncTabs: false, persist: false, anonymousId: 'edge-test-id' };

/** An HttpRequest as the HTTP client builds it. */
function httpRequest(overrides: Partial<HttpRequest> = {}): HttpRequest {
  return {
    method: 'GET',
    url: `${BASE_URL}/sdk/v1/snapshot`,
    headers: { authorization: `Bearer ${CLIENT_KEY}` },
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('fetchTransport in a page', () => {
  it('leaves revalidation to the HTTP cache: default cache mode, no If-None-Match, so the preflight cache holds', async () => {
    vi.stubGlobal('document', {});
    const calls = stubFetch(200, ETAG);
    await fetchTransport(request({ 'if-none-match': ETAG, 'flagplane-min-version': '4' }));
    expect(calls[0]!.init.cache).toBeUndefined();
    expect(calls[0]!.init.headers).toEqual({ authorization: 'Bearer svc_sdk_client_test_key_0001', 'flagplane-min-version': '4' });
  });

  it('reports a 200 carrying the ETag the client holds as the 304 it was, without the body', async () => {
    vi.stubGlobal('document', {});
    stubFetch(200, ETAG);
    const result = await fetchTransport(request({ 'if-none-match': ETAG }));
    expect(result).toMatchObject({ kind: 'response', status: 304 });
  });

  it('passes a 200 with another ETag, or without one held, through with its body', async () => {
    vi.stubGlobal('document', {});
    stubFetch(200, '"snapshot-5"', '{"version":5}');
    expect(await fetchTransport(request({ 'if-none-match': ETAG }))).toMatchObject({ status: 200, body: '{"version":5}' });
    stubFetch(200, ETAG);
    expect(await fetchTransport(request())).toMatchObject({ status: 200, body: '{"version":4}' });
  });

  it('does the same in a worker (importScripts, no document)', async () => {
    vi.stubGlobal('importScripts', () => undefined);
    const calls = stubFetch(200, ETAG);
    expect(await fetchTransport(request({ 'if-none-match': ETAG }))).toMatchObject({ status: 304 });
    expect(calls[0]!.init.headers['if-none-match']).toBeUndefined();
  });
});

describe('fetchTransport failing in a page', () => {
  it('answers a failed fetch a task later, so that a pagehide fired meanwhile is seen first', async () => {
    vi.stubGlobal('document', {});
    const cause = new TypeError('Failed to fetch');
    vi.stubGlobal('fetch', async () => {
      throw cause;
    });
    const order: string[] = [];
    const answered = fetchTransport(request()).then((result) => {
      order.push('answered');
      return result;
    });
    // What Chromium does: the request fails, then pagehide fires in the same task.
    await Promise.resolve();
    await Promise.resolve();
    order.push('pagehide');
    expect(await answered).toEqual({ kind: 'network-error', cause });
    expect(order).toEqual(['pagehide', 'answered']);
  });
});

describe('fetchTransport outside browsers', () => {
  it('sends the client’s If-None-Match itself, with no-store, and passes the 304 through', async () => {
    expect(typeof document).toBe('undefined');
    const calls = stubFetch(304, ETAG);
    const result = await fetchTransport(request({ 'if-none-match': ETAG }));
    expect(calls[0]!.init).toMatchObject({ cache: 'no-store', headers: { 'if-none-match': ETAG } });
    expect(result).toMatchObject({ status: 304 });
  });

  it('keeps a 200 with the same ETag as a 200: only a browser cache answers that way for a 304', async () => {
    stubFetch(200, ETAG);
    expect(await fetchTransport(request({ 'if-none-match': ETAG }))).toMatchObject({ status: 200, body: '{"version":4}' });
  });
});

describe('fetchTransport on odd fetch behaviour', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
  it('hands method, headers, body, keepalive and signal to fetch with cache no-store; header() ignores case; a 204 has an empty body', async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 204, headers: { ETaG: '"v9"', 'Retry-After': '3' } }));
    vi.stubGlobal('fetch', fetch);
    const signal = new AbortController().signal;
    const result = await fetchTransport(httpRequest({ method: 'POST', body: '{"x":1}', keepalive: true, signal, headers: { 'content-type': 'application/json' } }));
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
    const result = await fetchTransport(httpRequest());
    expect(result).toMatchObject({ kind: 'response', status: 200, body: 'late-bound' });
  });

  it('in a page, an AbortError DOMException nobody asked for (the browser cancelled it) is a network error, not a silent abort', async () => {
    const cause = new DOMException('The user aborted a request.', 'AbortError');
    vi.stubGlobal('document', {});
    vi.stubGlobal('fetch', async () => {
      throw cause;
    });
    expect(await fetchTransport(httpRequest())).toEqual({ kind: 'network-error', cause });
  });

  it('outside pages, what a server framework throws to end its render ends the request with that cause: Next.js digests, React postpone, an abort we did not ask for', async () => {
    const dynamicUsage = Object.assign(new Error('Route / couldn’t be rendered statically because it used no-store fetch'), { digest: 'DYNAMIC_SERVER_USAGE' });
    const postpone = Object.assign(new Error('postponed'), { $$typeof: Symbol.for('react.postpone') });
    const abort = new DOMException('This operation was aborted', 'AbortError');
    for (const cause of [dynamicUsage, postpone, abort]) {
      vi.stubGlobal('fetch', async () => {
        throw cause;
      });
      expect(await fetchTransport(httpRequest())).toEqual({ kind: 'aborted', cause });
    }
    // The network failing is still a network error: Node's, and Bun's (an Error with a code).
    for (const cause of [new TypeError('fetch failed'), Object.assign(new Error('Unable to connect'), { code: 'ConnectionRefused' })]) {
      vi.stubGlobal('fetch', async () => {
        throw cause;
      });
      expect(await fetchTransport(httpRequest())).toEqual({ kind: 'network-error', cause });
    }
  });

  it('a rejection after our own abort is an abort, whatever it is (TypeError, DOMException)', async () => {
    for (const thrown of [new TypeError('Failed to fetch'), new DOMException('aborted', 'AbortError')]) {
      const controller = new AbortController();
      vi.stubGlobal('fetch', async () => {
        controller.abort();
        throw thrown;
      });
      expect(await fetchTransport(httpRequest({ signal: controller.signal }))).toEqual({ kind: 'aborted' });
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
    const result = await fetchTransport(httpRequest());
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

describe('fetchTransport where the runtime rejects the cache field (Cloudflare Workers before 2024-11-11)', () => {
  it('sends the request again without it, and every later one without it', async () => {
    vi.resetModules();
    // A fresh module: which runtime rejects the field is remembered for the process.
    const { fetchTransport: fresh } = await import('../../src/http/fetch-transport');
    const inits: RequestInit[] = [];
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      inits.push(init);
      // What workerd throws, an Error (not a TypeError), before any I/O.
      if ('cache' in init && init.cache !== undefined) throw new Error("The 'cache' field on 'RequestInitializerDict' is not implemented.");
      return new Response('{"version":4}', { status: 200, headers: { etag: ETAG } });
    });
    expect(await fresh(request({ 'if-none-match': ETAG }))).toMatchObject({ kind: 'response', status: 200 });
    expect(await fresh(request({ 'if-none-match': ETAG }))).toMatchObject({ kind: 'response', status: 200 });
    expect(inits.map((init) => init.cache)).toEqual(['no-store', undefined, undefined]);
    // The client's own If-None-Match still goes out.
    expect(inits[2]!.headers).toMatchObject({ 'if-none-match': ETAG });
  });

  it('any other failure is a network error, sent once, and keeps no-store', async () => {
    vi.resetModules();
    const { fetchTransport: fresh } = await import('../../src/http/fetch-transport');
    const inits: RequestInit[] = [];
    const cause = new TypeError('fetch failed');
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      inits.push(init);
      throw cause;
    });
    expect(await fresh(request())).toEqual({ kind: 'network-error', cause });
    expect(await fresh(request())).toEqual({ kind: 'network-error', cause });
    expect(inits.map((init) => init.cache)).toEqual(['no-store', 'no-store']);
  });
});
