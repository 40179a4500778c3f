import { nextDelay } from './backoff';
import type { DiagnosticEvent } from './diagnostic-events';
import { FlagplaneError, type HttpError } from './errors';
import { splitIntoBatches, type Batch } from './event-batches';
import { EventBuffer } from './event-buffer';
import type { HttpClient } from './http-client';
import type { Scheduler } from './scheduler';
import { authHeaders, httpErrorOf } from './snapshot-fetch';

export const EVENTS_ROUTE = 'POST /sdk/v1/events';

export interface EventSenderOptions {
  baseUrl: string;
  sdkKey: string;
  http: HttpClient;
  scheduler: Scheduler;
  flushAt: number;
  /** 0 disables the timer. */
  flushInterval: number;
  report(error: FlagplaneError): void;
  /** Called as each flush starts: a new window for "first time served" deduplication. */
  newWindow(): void;
}

type SendResult = 'sent' | 'retry' | 'dropped';

/**
 * The event buffer's sending side: flushes by size and by timer, keeps a failed batch in
 * order and retries it with backoff, drops a batch the server rejects as malformed (4xx),
 * and reports every loss through `report` — nothing is lost silently.
 */
export function createEventSender(options: EventSenderOptions) {
  const { http, scheduler } = options;
  const buffer = new EventBuffer();
  let timer: unknown;
  let retries = 0;
  let sending: Promise<void> | null = null;
  let stopped = false;

  const clearTimer = () => {
    if (timer !== undefined) scheduler.clearTimeout(timer);
    timer = undefined;
  };
  const arm = (delay: number) => {
    clearTimer();
    if (!stopped) timer = scheduler.setTimeout(() => ((timer = undefined), void flush()), delay);
  };
  // The interval timer runs only while events wait, so an idle client keeps no timer.
  const armInterval = () => {
    if (options.flushInterval > 0 && buffer.size > 0) arm(options.flushInterval);
  };

  async function send(batch: Batch, keepalive: boolean): Promise<SendResult> {
    const request = {
      method: 'POST' as const,
      url: `${options.baseUrl}/sdk/v1/events`,
      headers: { ...authHeaders(options.sdkKey), 'content-type': 'application/json' },
      body: batch.body,
      keepalive,
    };
    const outcome = await http.send(request, EVENTS_ROUTE);
    if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) return 'sent';
    if (outcome.kind === 'aborted') return 'retry';
    const error = outcome.kind === 'failed' ? outcome.error : httpErrorOf(outcome.status, EVENTS_ROUTE, outcome.body);
    const status = (error as HttpError).status;
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      options.report(new FlagplaneError('events', `dropped ${batch.events.length} events the server rejected: ${error.message}`, error));
      return 'dropped';
    }
    options.report(error);
    return 'retry';
  }

  function reportDropped(): void {
    const dropped = buffer.takeDropped();
    if (dropped > 0) options.report(new FlagplaneError('events', `dropped the ${dropped} oldest events: the buffer holds at most 1000`));
  }

  async function sendAll(keepalive: boolean): Promise<void> {
    options.newWindow();
    reportDropped();
    const batches = splitIntoBatches(buffer.take(), new Date(scheduler.now()).toISOString());
    for (let i = 0; i < batches.length; i++) {
      if ((await send(batches[i]!, keepalive)) === 'retry') {
        buffer.restore(batches.slice(i).flatMap((batch) => batch.events));
        retries++;
        return arm(nextDelay(retries, { base: 1000, max: 60_000, jitter: 0.2, random: scheduler.random() }));
      }
    }
    retries = 0;
    armInterval();
  }

  /** Sends everything buffered; resolves when done (sent, dropped or put back for a retry). */
  function flush(keepalive = false): Promise<void> {
    if (sending) return sending.then(() => (buffer.size > 0 && !stopped ? flush(keepalive) : undefined));
    if (buffer.size === 0) return Promise.resolve();
    sending = sendAll(keepalive).finally(() => (sending = null));
    return sending;
  }

  return {
    push(event: DiagnosticEvent): void {
      if (stopped) return;
      buffer.push(event);
      if (buffer.size >= options.flushAt && !sending && retries === 0) void flush();
      else if (timer === undefined && !sending) armInterval();
    },
    flush,
    /** Flushes once more, then stops the timer; later events are not buffered. */
    async close(): Promise<void> {
      clearTimer();
      await flush(true);
      stopped = true;
      clearTimer();
    },
  };
}

export type EventSender = ReturnType<typeof createEventSender>;
