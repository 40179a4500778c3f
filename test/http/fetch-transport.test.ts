import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchTransport } from '../../src/http/fetch-transport';
import type { HttpRequest } from '../../src/http/http-types';

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
