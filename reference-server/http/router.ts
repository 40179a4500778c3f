import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { HandlerResult } from './responses';
import { CORS_HEADERS, errorBody, errorResult, RouteError, PREFLIGHT_HEADERS, writeResult } from './responses';
import { readBody, RequestAbortedError } from './request-body';

/** What a handler sees of a request. */
export interface HandlerRequest {
  readonly method: string;
  readonly path: string;
  /** Decoded `:name` segments of the pattern. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The socket's peer: the client, or the proxy in front of it (http/client-address.ts). */
  readonly remoteAddress: string | undefined;
  readBody(limit: number): Promise<Buffer>;
}

export type RouteHandler = (request: HandlerRequest) => HandlerResult | Promise<HandlerResult>;

export interface Route {
  /** Literal segments and `:name` placeholders, e.g. `/admin/v1/environments/:id/snapshot`. */
  readonly pattern: string;
  readonly methods: Readonly<Partial<Record<string, RouteHandler>>>;
}

export const SDK_PREFIX = '/sdk/v1/';

/**
 * The path and query of a request target. RFC 9112 §3.2.2: a server must accept the
 * absolute form (`http://host/path?query`) as well as the usual origin form (`/path?query`).
 */
export function splitTarget(target: string): { path: string; query: URLSearchParams } {
  if (!target.startsWith('/') && URL.canParse(target)) {
    const url = new URL(target);
    return { path: url.pathname, query: url.searchParams };
  }
  const index = target.indexOf('?');
  return index === -1
    ? { path: target, query: new URLSearchParams() }
    : { path: target.slice(0, index), query: new URLSearchParams(target.slice(index + 1)) };
}

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const expected = pattern.split('/');
  const actual = path.split('/');
  if (expected.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i] as string;
    const got = actual[i] as string;
    if (!want.startsWith(':')) {
      if (want !== got) return undefined;
      continue;
    }
    if (got === '') return undefined;
    try {
      params[want.slice(1)] = decodeURIComponent(got);
    } catch {
      return undefined;
    }
  }
  return params;
}

function findRoute(routes: readonly Route[], path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routes) {
    const params = matchPattern(route.pattern, path);
    if (params) return { route, params };
  }
  return undefined;
}

function allowedMethods(route: Route, cors: boolean): string {
  const methods = Object.keys(route.methods);
  return (cors ? [...methods, 'OPTIONS'] : methods).join(', ');
}

async function dispatch(routes: readonly Route[], req: IncomingMessage, path: string, query: URLSearchParams, cors: boolean): Promise<HandlerResult> {
  const method = req.method ?? 'GET';
  const found = findRoute(routes, path);
  if (!found) throw new RouteError(404, 'not_found', `no route ${path}`);
  const { route, params } = found;
  if (cors && method === 'OPTIONS') return { status: 204, headers: PREFLIGHT_HEADERS };
  const handler = route.methods[method];
  if (!handler) {
    const allow = allowedMethods(route, cors);
    throw new RouteError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allow}`, undefined, { Allow: allow });
  }
  return handler({ method, path, params, query, headers: req.headers, remoteAddress: req.socket.remoteAddress, readBody: (limit) => readBody(req, limit) });
}

/**
 * The `request` listener: matches a route, answers 404/405/preflight itself, and turns
 * anything a handler throws into the one error shape. A non-RouteError is a bug: 500.
 */
export function createRequestListener(
  routes: readonly Route[],
  onInternalError: (error: unknown) => void,
  /** Runs before routing; what it throws is the answer (the admin token, whatever the path). */
  guard: (path: string, headers: IncomingHttpHeaders) => void = () => undefined,
) {
  const reportInternal = (error: unknown) => {
    try {
      onInternalError(error);
    } catch {
      // A failing reporter must not take the server down with it.
    }
  };
  const failureResult = (error: unknown): HandlerResult => {
    if (error instanceof RouteError) return errorResult(error);
    reportInternal(error);
    return { status: 500, body: errorBody('internal', 'internal server error') };
  };
  const respond = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { path, query } = splitTarget(req.url ?? '/');
    const cors = path.startsWith(SDK_PREFIX);
    let result: HandlerResult;
    try {
      // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400.
      if (req.httpVersion === '1.1' && req.headers.host === undefined) {
        throw new RouteError(400, 'invalid_request', 'the Host header is required in HTTP/1.1', 'Host');
      }
      guard(path, req.headers);
      result = await dispatch(routes, req, path, query, cors);
    } catch (error) {
      if (error instanceof RequestAbortedError) {
        res.destroy();
        return;
      }
      result = failureResult(error);
    }
    if (res.headersSent || res.destroyed) return;
    try {
      writeResult(res, result, cors ? CORS_HEADERS : {});
    } catch (error) {
      // A body JSON cannot hold is a bug of ours: answered like any other.
      writeResult(res, failureResult(error), cors ? CORS_HEADERS : {});
    }
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    respond(req, res).catch((error: unknown) => {
      reportInternal(error);
      res.destroy();
    });
  };
}
