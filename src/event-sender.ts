import { nextDelay } from './backoff';
import type { DiagnosticEvent } from './diagnostic-events';
import { FlagplaneError } from './errors';
import { batchLength } from './event-batches';
import type { HttpClient } from './http-client';
import type { Scheduler } from './scheduler';
import { authHeaders, httpErrorOf } from './snapshot-fetch';

export const EVENTS_ROUTE = 'POST /sdk/v1/events';
/** Events buffered at most; past it the oldest are dropped, counted and reported. */
export const MAX_BUFFERED_EVENTS = 1000;

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

/**
 * The event buffer and its sending side: flushes by size and by timer, keeps a failed
 * batch in order and retries it with backoff, drops a batch the server rejects as
 * malformed (4xx), and reports every loss through `report` — nothing is lost silently.
 */
export function createEventSender(options: EventSenderOptions) {
  const { http, scheduler, report, flushInterval } = options;
  let buffer: DiagnosticEvent[] = [];
  /** Events dropped because the buffer was full, reported at the next flush. */
  let dropped = 0;
  let timer: unknown;
  let retries = 0;
  let sending: Promise<void> | undefined;
  let closed = false;

  // Keeps the newest events; `splice` with a negative count removes nothing.
  const bound = () => (dropped += buffer.splice(0, buffer.length - MAX_BUFFERED_EVENTS).length);
  /**
   * Replaces the one timer (interval or retry). None without a delay (`flushInterval` 0),
   * while no events wait (an idle client keeps no timer), or once closed. The flush it
   * starts clears it: a timer never runs while a flush is in flight.
   */
  const setTimer = (delay: number) => {
    if (timer !== undefined) scheduler.clearTimeout(timer);
    timer = delay > 0 && buffer.length && !closed ? scheduler.setTimeout(flush, delay) : undefined;
  };

  async function sendAll(keepalive?: boolean): Promise<void> {
    setTimer(0); // clears it
    options.newWindow();
    if (dropped) report(new FlagplaneError('events', `dropped the ${dropped} oldest events: the buffer holds at most ${MAX_BUFFERED_EVENTS}`));
    dropped = 0;
    const pending = buffer;
    buffer = [];
    while (pending.length) {
      const events = pending.splice(0, batchLength(pending));
      const outcome = await http.send(
        {
          method: 'POST',
          url: `${options.baseUrl}/sdk/v1/events`,
          headers: { ...authHeaders(options.sdkKey), 'content-type': 'application/json' },
          body: JSON.stringify({ sentAt: new Date(scheduler.now()).toISOString(), events }),
          keepalive,
        },
        EVENTS_ROUTE,
      );
      if (outcome.kind === 'response') {
        const { status } = outcome;
        if (status >= 200 && status < 300) continue;
        const error = httpErrorOf(status, EVENTS_ROUTE, outcome.body);
        // Any other 4xx means the batch is malformed: sending it again cannot help.
        if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
          report(new FlagplaneError('events', `dropped ${events.length} events the server rejected: ${error.message}`, error));
          continue;
        }
        report(error);
      } else if (outcome.kind === 'failed') report(outcome.error);
      // Network error, timeout, 408, 429, 5xx (or an abort, which nobody asks of this
      // client): back in front, in order, for a retry.
      buffer = events.concat(pending, buffer);
      bound();
      return setTimer(nextDelay(++retries, { base: 1000, max: 60_000, jitter: 0.2, random: scheduler.random() }));
    }
    retries = 0;
    setTimer(flushInterval);
  }

  /** Sends everything buffered; resolves when done (sent, dropped or put back for a retry). */
  async function flush(keepalive?: boolean): Promise<void> {
    if (sending) return sending.then(() => flush(keepalive));
    if (buffer.length) {
      sending = sendAll(keepalive).finally(() => (sending = undefined));
      return sending;
    }
  }

  return {
    push(event: DiagnosticEvent): void {
      if (closed) return;
      buffer.push(event);
      bound();
      // While a flush is in flight or waits for its retry, it owns the timer and the next send.
      if (sending || retries) return;
      if (buffer.length >= options.flushAt) void flush();
      else if (timer === undefined) setTimer(flushInterval);
    },
    flush,
    /** Flushes once more with keepalive; later events are not buffered and no timer is left. */
    close(): Promise<void> {
      closed = true;
      return flush(true);
    },
  };
}

export type EventSender = ReturnType<typeof createEventSender>;
