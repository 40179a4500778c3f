import type { HttpRequest, HttpResult, HttpTransport } from '../../src/http/http-types';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';

export type Reply = HttpResult | 'hang';

export function response(status: number, body = '', headers: Record<string, string> = {}): HttpResult {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { kind: 'response', status, body, header: (name) => lower[name.toLowerCase()] ?? null };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return response(status, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
}

/**
 * A transport driven by a handler. Every request is recorded with whether its signal
 * was aborted; `hang` never answers (only an abort ends it).
 */
export function createFakeTransport(handler: (request: HttpRequest) => Reply | Promise<Reply>) {
  const requests: HttpRequest[] = [];
  let current = handler;
  const transport: HttpTransport = async (request) => {
    requests.push(request);
    const reply = await current(request);
    if (reply !== 'hang') return reply;
    return new Promise<HttpResult>((resolve) => {
      request.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }));
    });
  };
  return {
    transport,
    requests,
    setHandler(next: typeof handler) {
      current = next;
    },
  };
}

/** A handler that behaves like the snapshot route: 200 with ETag, 304 when it matches. */
export function snapshotServer(initial: FlagSnapshot) {
  let snapshot = initial;
  const handler = (request: HttpRequest): Reply => {
    const etag = `"snapshot-${snapshot.version}"`;
    if (request.headers['if-none-match'] === etag) return response(304, '', { etag });
    return jsonResponse(200, snapshot, { etag, 'cache-control': 'no-cache' });
  };
  return {
    handler,
    publish(next: FlagSnapshot) {
      snapshot = next;
    },
  };
}
