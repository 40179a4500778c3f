import { nextDelay, RETRY_POLICY } from '../shared/backoff';
import type { DiagnosticEvent } from './diagnostic-events';
import { FlagplaneError } from '../shared/errors';
import type { EvaluationDetails } from '../evaluation/evaluation-types';
import type { ServedMark } from '../evaluation/flag-values';
import { isId } from '../shared/guards';
import { batchLength } from './event-batches';
import { httpErrorOf, type HttpClient } from '../http/http-client';
import { onPageHide } from '../platform/index';
import { parseRetryAfter } from '../snapshot/snapshot-fetch';
import type { Scheduler } from '../shared/scheduler';

export const EVENTS_ROUTE = 'POST /sdk/v1/events';
/** Events buffered at most; past it the oldest are dropped, counted and reported. */
export const MAX_BUFFERED_EVENTS = 1000;
/** (key, value, user) combinations remembered per flush window; past it, memory starts over. */
const MAX_COMBINATIONS = 10_000;

export interface EventSenderOptions {
  /** Replaced by `[sdk key]` in `error` events. */
  sdkKey: string;
  http: HttpClient;
  scheduler: Scheduler;
  flushAt: number;
  /** 0 disables the timer. */
  flushInterval: number;
  report(error: FlagplaneError): void;
}

/**
 * The event buffer and its sending side: flushes by size, by timer and when the page goes
 * away, keeps a failed batch in order and retries it with backoff, drops a batch the
 * server rejects as malformed (4xx), and reports every loss through `report` — nothing
 * is lost silently.
 */
export function createEventSender(options: EventSenderOptions) {
  const { http, scheduler, report, flushInterval } = options;
  /**
   * Each event as JSON, taken when it is pushed (later changes to its objects do not leak in),
   * after its push number: a batch put back goes back in push order, even beside another.
   */
  let buffer: Array<[number, string]> = [];
  let pushed = 0;
  /** Events dropped because the buffer was full, reported at the next flush. */
  let dropped = 0;
  let timer: unknown;
  /** Failed sends in a row: the backoff of the retry waiting, 0 when none waits. */
  let attempt = 0;
  /** Send loops in flight (page hide and close() start one beside a regular send), and their promises. */
  let running = 0;
  const loops = new Set<Promise<void>>();
  /** `close()`'s last flush: once it started, nothing more is buffered or sent, and no timer armed. */
  let closing: Promise<void> | undefined;
  // Read tracking. Fast path: a flag whose outcome did not change keeps its details object
  // and the mark beside it, so a read already reported to this user in this window costs two
  // comparisons, not a JSON key.
  /** Counts flush windows: a mark from an earlier one no longer counts. */
  let window = 0;
  const combinations = new Set<string>();
  const unknownKeys = new Set<string>();

  /** Adds `id` to `seen`; whether it was new there. */
  const isNew = (seen: Set<string>, id: string) => seen.size < seen.add(id).size;
  // Keeps the newest events; `splice` with a negative count removes nothing.
  const bound = () => (dropped += buffer.splice(0, buffer.length - MAX_BUFFERED_EVENTS).length);
  /**
   * Replaces the one timer (interval or retry). None without a delay (`flushInterval` 0)
   * or once closing; only armed while events wait (an idle client keeps no timer). Firing,
   * it forgets itself and flushes: a send in flight is joined.
   */
  const setTimer = (delay: number) => {
    scheduler.clearTimeout(timer);
    timer =
      delay > 0 && !closing
        ? scheduler.setTimeout(() => {
            timer = undefined;
            void flush();
          }, delay)
        : undefined;
  };

  /**
   * Sends the buffer batch by batch until it is empty, events buffered meanwhile included
   * (the bound never reaches the batch in flight), or until a batch must be retried.
   */
  async function sendAll(keepalive?: boolean): Promise<void> {
    // A new flush window: combinations may be reported again.
    window++;
    combinations.clear();
    setTimer(0); // clears it
    running++;
    if (dropped) report(new FlagplaneError('events', `dropped the ${dropped} oldest events: the buffer holds at most ${MAX_BUFFERED_EVENTS}`));
    dropped = 0;
    while (buffer.length) {
      const taken = buffer.splice(0, batchLength(buffer.map(([, json]) => json)));
      const events = taken.map(([, json]) => json);
      let retryAfter = 0;
      const outcome = await http.send(EVENTS_ROUTE, {
        headers: { 'content-type': 'application/json' },
        body: `{"sentAt":"${new Date(scheduler.now()).toISOString()}","events":[${events}]}`,
        keepalive,
      });
      if (outcome.kind === 'response') {
        const { status } = outcome;
        if (status >= 200 && status < 300) continue;
        const error = httpErrorOf(outcome, EVENTS_ROUTE);
        // Any other 4xx means the batch is malformed: sending it again cannot help.
        if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
          report(new FlagplaneError('events', `dropped ${events.length} events the server rejected: ${error.message}`, error));
          continue;
        }
        report(error);
        // Protocol.md §5: a 429 or 503 may say how long to wait.
        if (status === 429 || status === 503) retryAfter = parseRetryAfter(outcome.header('retry-after'), scheduler.now()) ?? 0;
      } else if (outcome.kind === 'failed') report(outcome.error);
      // Network error, timeout, 408, 429, 5xx, or a send the page ended as it went away:
      // back, in push order, for a retry.
      buffer = taken.concat(buffer).sort((a, b) => a[0] - b[0]);
      bound();
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
    if (closing) return closing;
    if (!running || keepalive) {
      const loop: Promise<void> = sendAll(keepalive).then(() => void loops.delete(loop));
      loops.add(loop);
    }
    return Promise.all(loops).then(() => undefined);
  }

  /** Buffers `event`; throws, buffering nothing, for one that JSON cannot hold (a `BigInt`, a cycle). */
  function push(event: DiagnosticEvent): void {
    if (closing) return;
    buffer.push([pushed++, JSON.stringify(event)]);
    bound();
    // While a send runs or a retry waits, that one sends this event: no timer, no flush.
    if (running || attempt) return;
    if (buffer.length < options.flushAt) {
      if (timer === undefined) setTimer(flushInterval);
    } else void flush();
  }

  /** What `track` does with a read not yet reported to this user in this window. */
  function reportRead(details: EvaluationDetails, userId: string, mark?: ServedMark): void {
    if (mark) {
      mark.servedTo = userId;
      mark.window = window;
    }
    const { key, reason, value, version, errorCode } = details;
    // An unknown key's details are new at every read: remembering them would only grow `served`.
    if (errorCode === 'FLAG_NOT_FOUND') {
      if (isId(key) && isNew(unknownKeys, key)) push({ type: 'unregistered_flag', key });
      return;
    }
    // Only what the events route takes: one event it refuses would cost its whole batch.
    if (!isId(key) || version === null) return;
    // Bounded even when nothing flushes (flushInterval 0): at worst a combination is reported twice.
    if (combinations.size >= MAX_COMBINATIONS) combinations.clear();
    if (isNew(combinations, JSON.stringify([key, userId, value]))) {
      push({ type: 'evaluation', key, reason, value: value ?? null, userId: isId(userId) ? userId : undefined });
    }
  }

  // Both halves may fire for one unload: a second flush finds the buffer empty.
  const stopPageHide = onPageHide(() => flush(true));

  return {
    push,
    /**
     * Reports a read served to `userId` (the context's, else the anonymous id): an
     * `evaluation` event the first time a (key, value, user) is served in a flush window,
     * an `unregistered_flag` event the first time an unknown key is read. Reads without a
     * snapshot version (before any snapshot, local overrides) are not reported: they say
     * nothing about the flags. Throws for a value JSON cannot hold. `mark`, which the reader
     * keeps beside `details` (and only beside them), notes who they were reported for.
     */
    track(details: EvaluationDetails, userId: string, mark?: ServedMark): void {
      if (!(mark && mark.servedTo === userId && mark.window === window)) reportRead(details, userId, mark);
    },
    /** Buffers the `error` event of an error reported through `onError`, without the SDK key. */
    error(error: FlagplaneError): void {
      push({ type: 'error', message: error.message.replaceAll(options.sdkKey, '[sdk key]').slice(0, 2048) });
    },
    flush,
    /**
     * Flushes once more with keepalive, and resolves when that and any send in flight are
     * done; later events are not buffered, later flushes send nothing, and no timer or page
     * listener is left.
     */
    close(): Promise<void> {
      stopPageHide();
      return (closing ??= flush(true));
    },
  };
}

export type EventSender = ReturnType<typeof createEventSender>;
