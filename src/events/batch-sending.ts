import { nextDelay, RETRY_POLICY } from '../shared/backoff';
import { FlagplaneError } from '../shared/errors';
import { httpErrorOf } from '../http/http-client';
import { parseRetryAfter } from '../http/retry-after';
import { MAX_BUFFERED_EVENTS, type EventBuffer } from './event-buffer';
import type { HttpClient } from '../http/http-client';
import type { Scheduler } from '../shared/scheduler';

export const EVENTS_ROUTE = 'POST /sdk/v1/events';

export interface EventSenderOptions {
  /** Replaced by `[sdk key]` in `error` events. */
  sdkKey: string;
  http: HttpClient;
  scheduler: Scheduler;
  flushAt: number;
  /** 0 disables the timer. */
  flushInterval: number;
  report(error: FlagplaneError): void;
  /** While it says so, the interval, `flushAt` and retries send nothing: events wait to be back online. */
  offline(): boolean;
}

/**
 * The sending side of the event buffer: batch by batch, by size, by timer and on demand;
 * a failed batch goes back in order and is retried with backoff, a batch the server rejects
 * as malformed (4xx) is dropped, and every loss is reported. `closing()` is `close()`'s last
 * flush once it started: then no timer is armed; `nextWindow` starts a flush window of the
 * read tracker at each send.
 */
export function createBatchSending(
  options: EventSenderOptions,
  buffer: EventBuffer,
  closing: () => Promise<void> | undefined,
  nextWindow: () => void,
) {
  const { scheduler, report, flushInterval } = options;
  let timer: unknown;
  /** Failed sends in a row: the backoff of the retry waiting, 0 when none waits. */
  let attempt = 0;
  /** Send loops in flight (page hide and close() start one beside a regular send), and their promises. */
  let running = 0;
  const loops = new Set<Promise<void>>();
  // The one timer (interval or retry), replaced at each call: none without a delay or once
  // closing, and only while events wait. Firing, it forgets itself and flushes (joining a send).
  const setTimer = (delay: number) => {
    scheduler.clearTimeout(timer);
    timer =
      delay > 0 && !closing()
        ? scheduler.setTimeout(() => {
            timer = undefined;
            if (!options.offline()) void flush();
          }, delay)
        : undefined;
  };

  /**
   * Sends the buffer batch by batch until it is empty, events buffered meanwhile included
   * (the bound never reaches the batch in flight), or until a batch must be retried.
   */
  async function sendAll(keepalive?: boolean): Promise<void> {
    nextWindow();
    setTimer(0); // clears it
    running++;
    const dropped = buffer.takeDropped();
    if (dropped) report(new FlagplaneError('events', `dropped the ${dropped} oldest events: the buffer holds at most ${MAX_BUFFERED_EVENTS}`));
    while (buffer.size()) {
      const taken = buffer.take();
      const retryAfter = await sendBatch(taken.map(([, json]) => json), keepalive, options);
      if (retryAfter === null) continue;
      // Network error, timeout, 408, 429, 5xx, or a send the page ended as it went away:
      // back, in push order, for a retry.
      buffer.putBack(taken);
      running--;
      return setTimer(Math.max(retryAfter, nextDelay(++attempt, { ...RETRY_POLICY, random: scheduler.random() })));
    }
    // All sent, a batch put back by a loop beside this one included: no retry waits.
    running--;
    attempt = 0;
    setTimer(0);
  }

  /**
   * Sends everything buffered; resolves when every send in flight is done (sent, dropped or
   * put back for a retry). Asked for while a send runs, it joins it (that send takes what is
   * buffered meanwhile too) — except with keepalive (the page is going away), which cannot
   * wait: it sends what waits at once, beside the request in flight.
   */
  function flush(keepalive?: boolean): Promise<void> {
    if (closing()) return closing()!;
    if (!running || keepalive) {
      const loop: Promise<void> = sendAll(keepalive).then(() => void loops.delete(loop));
      loops.add(loop);
    }
    return Promise.all(loops).then(() => undefined);
  }

  return {
    flush,
    /** After an event was buffered: flushes when `flushAt` are waiting, else arms the interval. */
    added(): void {
      // While a send runs or a retry waits, that one sends this event: no timer, no flush.
      // Offline, the flush when back online does.
      if (running || attempt || options.offline()) return;
      if (buffer.size() < options.flushAt) {
        if (timer === undefined) setTimer(flushInterval);
      } else void flush();
    },
  };
}

/**
 * Sends one batch: `null` when it is done with (sent, or dropped as malformed, which is
 * reported), else the wait before it is sent again (`Retry-After`, 0 without one), its
 * failure reported.
 */
async function sendBatch(events: string[], keepalive: boolean | undefined, { http, report, scheduler }: EventSenderOptions): Promise<number | null> {
  const outcome = await http.send(EVENTS_ROUTE, {
    headers: { 'content-type': 'application/json' },
    body: `{"sentAt":"${new Date(scheduler.now()).toISOString()}","events":[${events}]}`,
    keepalive,
  });
  if (outcome.kind === 'response') {
    const { status } = outcome;
    if (status >= 200 && status < 300) return null;
    const error = httpErrorOf(outcome, EVENTS_ROUTE);
    // Any other 4xx means the batch is malformed: sending it again cannot help.
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      report(new FlagplaneError('events', `dropped ${events.length} events the server rejected: ${error.message}`, error));
      return null;
    }
    report(error);
    // Protocol.md §5: a 429 or 503 may say how long to wait.
    if (status === 429 || status === 503) return parseRetryAfter(outcome.header('retry-after'), scheduler.now()) ?? 0;
  } else if (outcome.kind === 'failed') report(outcome.error);
  return 0;
}
