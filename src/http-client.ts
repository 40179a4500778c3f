import { NetworkError, TimeoutError } from './errors';
import type { HttpRequest, HttpResult, HttpTransport } from './http-types';
import type { Scheduler } from './scheduler';

export type SendOutcome =
  | Extract<HttpResult, { kind: 'response' }>
  | { kind: 'failed'; error: NetworkError | TimeoutError }
  | { kind: 'aborted' };

export interface HttpClient {
  /** Sends one request under its own `AbortController`, timed out by the scheduler. */
  send(request: Omit<HttpRequest, 'signal'>, route: string, controller?: AbortController): Promise<SendOutcome>;
  /** Aborts every request in flight; their outcomes are `aborted`, never errors. */
  abortAll(): void;
}

export function createHttpClient(transport: HttpTransport, scheduler: Scheduler, timeoutMs: number): HttpClient {
  const inFlight = new Set<AbortController>();
  return {
    async send(request, route, controller = new AbortController()) {
      let timer: unknown;
      // Settling on abort and timeout ourselves means a transport that ignores the
      // signal cannot keep a request (or `close()`) waiting forever.
      const cut = new Promise<SendOutcome>((resolve) => {
        controller.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }));
        if (timeoutMs > 0) {
          timer = scheduler.setTimeout(() => {
            resolve({ kind: 'failed', error: new TimeoutError(route, timeoutMs) });
            controller.abort();
          }, timeoutMs);
        }
      });
      inFlight.add(controller);
      let result: HttpResult | SendOutcome;
      try {
        result = await Promise.race([transport({ ...request, signal: controller.signal }), cut]);
      } catch (cause) {
        // A transport must not throw; one that does is treated as a network error.
        result = { kind: 'network-error', cause };
      }
      inFlight.delete(controller);
      // `timer` is undefined without a timeout; clearing that is a no-op.
      scheduler.clearTimeout(timer);
      return result.kind === 'network-error' ? { kind: 'failed', error: new NetworkError(route, result.cause) } : result;
    },
    abortAll() {
      for (const controller of inFlight) controller.abort();
    },
  };
}
