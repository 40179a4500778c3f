import { HttpError, NetworkError, TimeoutError } from '../shared/errors';
import type { HttpRequest, HttpResult, HttpTransport } from './http-types';
import type { Scheduler } from '../shared/scheduler';
import { parseJson } from '../shared/parse-json';
import { isString } from '../shared/guards';

export type SendOutcome =
  | Extract<HttpResult, { kind: 'response' | 'aborted' }>
  | { kind: 'failed'; error: NetworkError | TimeoutError };

/** What a route's request adds to the method, URL and bearer key the HTTP client sets. */
export interface RouteRequest {
  /** Appended to the route's path, `?` included. */
  query?: string;
  /** Added to the `authorization` header. */
  headers?: Record<string, string>;
  body?: string;
  keepalive?: boolean;
}

export interface HttpClient {
  /**
   * Sends `route` (`'GET /sdk/v1/snapshot'`: method and path under `baseUrl`) with the SDK
   * key as bearer token, under `controller` (its own by default), timed out by the scheduler.
   */
  send(route: string, request?: RouteRequest, controller?: AbortController): Promise<SendOutcome>;
  /**
   * Aborts the request sent under `controller`, or every request in flight without one; their
   * outcomes are `aborted`, never errors (as are failures while the page goes away).
   */
  abort(controller?: AbortController): void;
}

export function createHttpClient(
  options: {
    transport: HttpTransport;
    scheduler: Scheduler;
    requestTimeout: number;
    /** Without a trailing slash (resolveOptions trims it). */
    baseUrl: string;
    sdkKey: string;
  },
  /** How many times the page went away: a request that fails after one was ended by it, an abort. */
  pageExits?: () => number,
): HttpClient {
  const { transport, scheduler, requestTimeout } = options;
  /** Each request in flight, by its controller: the function that settles it as aborted. */
  const inFlight = new Map<AbortController, () => void>();
  /**
   * Aborts a request in flight; a settled one is left alone. Request-scoped runtimes
   * (Cloudflare Workers) throw when one request touches another's I/O: the request is
   * settled as aborted all the same, and no caller (`refresh()`, `close()`) sees a throw.
   */
  const abort = (controller: AbortController) => {
    const settle = inFlight.get(controller);
    if (!settle) return;
    settle();
    try {
      controller.abort();
    } catch {
      // Not ours to touch from here; the request already counts as aborted.
    }
  };
  return {
    async send(route, request = {}, controller = new AbortController()) {
      const [method, path] = route.split(' ') as [HttpRequest['method'], string];
      let timer: unknown;
      // Settling on abort and timeout ourselves means a transport that ignores the
      // signal cannot keep a request (or `close()`) waiting forever. Aborts go through
      // `abort()`, not a listener on the signal: in Node that listener costs a microsecond.
      const cut = new Promise<SendOutcome>((resolve) => {
        inFlight.set(controller, () => resolve({ kind: 'aborted' }));
        if (requestTimeout > 0) {
          timer = scheduler.setTimeout(() => {
            resolve({ kind: 'failed', error: new TimeoutError(route, requestTimeout) });
            controller.abort();
          }, requestTimeout);
        }
      });
      const exits = pageExits?.();
      let result: HttpResult | SendOutcome;
      try {
        result = await Promise.race([
          transport({
            method,
            url: options.baseUrl + path + (request.query ?? ''),
            headers: Object.assign({ authorization: `Bearer ${options.sdkKey}` }, request.headers),
            body: request.body,
            keepalive: request.keepalive,
            signal: controller.signal,
          }),
          cut,
        ]);
        // A custom transport with a missing `return` must not leave its caller waiting.
        if (!result) throw new TypeError('the transport answered nothing');
      } catch (cause) {
        // A transport must not throw; one that does is treated as a network error.
        result = { kind: 'network-error', cause };
      }
      inFlight.delete(controller);
      // `timer` is undefined without a timeout; clearing that is a no-op.
      scheduler.clearTimeout(timer);
      if (result.kind !== 'network-error') return result;
      return pageExits?.() !== exits ? { kind: 'aborted' } : { kind: 'failed', error: new NetworkError(route, result.cause) };
    },
    abort(controller) {
      if (controller) abort(controller);
      else inFlight.forEach((_, each) => abort(each));
    },
  };
}

/** The error of an unexpected answer, with the `{ error: { code, message } }` body of protocol.md §5 if there is one. */
export function httpErrorOf({ status, body }: { status: number; body: string }, route: string): HttpError {
  const { code, message } = (parseJson(body) as { error?: { code?: unknown; message?: unknown } } | null)?.error ?? {};
  return new HttpError(status, route, isString(code) ? code : undefined, isString(message) ? message : undefined);
}
