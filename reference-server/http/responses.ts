import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';

/** Every `code` of the one error shape (protocol.md §5). */
export type ErrorCode =
  | 'invalid_json'
  | 'invalid_batch'
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'upgrade_required'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

/** The body of every non-2xx, non-304 response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; path?: string };
}

/** What a route handler answers; the router writes it. */
export interface HandlerResult {
  status: number;
  headers?: Readonly<Record<string, string>>;
  /** Serialised as JSON; omitted for 204 and 304. */
  body?: unknown;
  /** A body sent as it is with its type: the console's page and script, a snapshot serialised once. */
  file?: { contentType: string; content: string | Buffer };
  /** Writes the whole response itself, status and headers included: the admin change feed, which stays open. */
  takeover?: (res: ServerResponse) => void;
}

/** Thrown by handlers for an expected failure; the router turns it into the error shape. */
export class RouteError extends Error {
  override readonly name = 'RouteError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly path?: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag',
};

export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match, Flagplane-Min-Version',
  'Access-Control-Max-Age': '86400',
};

export function errorBody(code: ErrorCode, message: string, path?: string): ErrorBody {
  return { error: path === undefined ? { code, message } : { code, message, path } };
}

export function errorResult(error: RouteError): HandlerResult {
  return { status: error.status, headers: error.headers, body: errorBody(error.code, error.message, error.path) };
}

export function writeResult(res: ServerResponse, result: HandlerResult, extraHeaders: Readonly<Record<string, string>>): void {
  if (result.takeover) return result.takeover(res);
  const hasBody = (result.body !== undefined || result.file !== undefined) && result.status !== 204 && result.status !== 304;
  let payload: Buffer | undefined;
  let entity: Record<string, string> | undefined;
  if (hasBody) {
    const content = result.file ? result.file.content : JSON.stringify(result.body);
    payload = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    entity = { 'Content-Type': result.file?.contentType ?? 'application/json; charset=utf-8', 'Content-Length': String(payload.length) };
  }
  // Object.assign, not spreads then members: V8 builds those one hidden class at a time,
  // microseconds on every response of the snapshot route (npm run bench:server).
  res.writeHead(result.status, Object.assign({}, extraHeaders, result.headers, entity));
  res.end(payload);
}

/**
 * For sockets that never became a ServerResponse: refused upgrades and malformed requests.
 * With the CORS headers whatever the path (protocol.md §10): the route of a request that
 * could not be parsed is unknown, and a browser shows a status without them as a CORS failure.
 */
export function writeRawError(socket: Duplex, status: number, body: ErrorBody, extraHeaders: Readonly<Record<string, string>> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const payload = JSON.stringify(body);
  const headers = {
    ...CORS_HEADERS,
    ...extraHeaders,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(payload)),
    Connection: 'close',
  };
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.end(`${head.join('\r\n')}\r\n\r\n${payload}`);
}
