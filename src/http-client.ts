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

  const send: HttpClient['send'] = (request, route, controller = new AbortController()) =>
    new Promise<SendOutcome>((resolve) => {
      let timer: unknown;
      let timedOut = false;
      const finish = (outcome: SendOutcome) => {
        if (!inFlight.delete(controller)) return;
        if (timer !== undefined) scheduler.clearTimeout(timer);
        controller.signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      // Settling on abort and timeout ourselves means a transport that ignores the
      // signal cannot keep a request (or `close()`) waiting forever.
      const onAbort = () => finish(timedOut ? { kind: 'failed', error: new TimeoutError(route, timeoutMs) } : { kind: 'aborted' });
      inFlight.add(controller);
      controller.signal.addEventListener('abort', onAbort);
      if (timeoutMs > 0) {
        timer = scheduler.setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
      }
      Promise.resolve()
        .then(() => transport({ ...request, signal: controller.signal }))
        .then(
          (result) => finish(result.kind === 'network-error' ? { kind: 'failed', error: new NetworkError(route, result.cause) } : result),
          (cause: unknown) => finish({ kind: 'failed', error: new NetworkError(route, cause) }),
        );
    });

  return {
    send,
    abortAll() {
      for (const controller of [...inFlight]) controller.abort();
    },
  };
}
