import { nextDelay, RETRY_POLICY } from './backoff';
import type { DiagnosticEvent } from './diagnostic-events';
import { FlagplaneError } from './errors';
import type { EvaluationDetails } from './evaluation-types';
import { batchLength } from './event-batches';
import { httpErrorOf, type HttpClient } from './http-client';
import { onPageHide } from './platform/index';
import type { Scheduler } from './scheduler';

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
  /** Each event as JSON, taken when it is pushed: later changes to its objects do not leak in. */
  let buffer: string[] = [];
  /** Events dropped because the buffer was full, reported at the next flush. */
  let dropped = 0;
  let timer: unknown;
  /** The flush attempt in flight or waiting for its retry, 1-based; 0 while idle. */
  let attempt = 0;
  /** The last flush started: a flush asked for while another runs waits for it. */
  let sending = Promise.resolve();
  let closed = false;
  // Read tracking. Fast path: a flag whose outcome did not change keeps its details object,
  // so a read already seen for this user in this window costs one lookup, not a JSON key.
  let served = new WeakMap<EvaluationDetails, string>();
  const combinations = new Set<string>();
  const unknownKeys = new Set<string>();

  /** Adds `id` to `seen`; whether it was new there. */
  const isNew = (seen: Set<string>, id: string) => seen.size < seen.add(id).size;
  // Keeps the newest events; `splice` with a negative count removes nothing.
  const bound = () => (dropped += buffer.splice(0, buffer.length - MAX_BUFFERED_EVENTS).length);
  /**
   * Replaces the one timer (interval or retry). None without a delay (`flushInterval` 0)
   * or once closed; only armed while events wait (an idle client keeps no timer). The
   * flush it starts clears it: a timer never runs while a flush is in flight.
   */
  const setTimer = (delay: number) => {
    scheduler.clearTimeout(timer);
    timer = delay > 0 && !closed ? scheduler.setTimeout(flush, delay) : undefined;
  };

  /**
   * Sends the buffer batch by batch until it is empty, events buffered meanwhile included
   * (the bound never reaches the batch in flight), or until a batch must be retried.
   */
  async function sendAll(keepalive?: boolean): Promise<void> {
    // A new flush window: combinations may be reported again.
    served = new WeakMap();
    combinations.clear();
    setTimer(0); // clears it
    attempt++;
    if (dropped) report(new FlagplaneError('events', `dropped the ${dropped} oldest events: the buffer holds at most ${MAX_BUFFERED_EVENTS}`));
    dropped = 0;
    while (buffer.length) {
      const events = buffer.splice(0, batchLength(buffer));
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
      } else if (outcome.kind === 'failed') report(outcome.error);
      // Network error, timeout, 408, 429, 5xx (or an abort, which nobody asks of this
      // client): back in front, in order, for a retry.
      buffer = events.concat(buffer);
      bound();
      return setTimer(nextDelay(attempt, { ...RETRY_POLICY, random: scheduler.random() }));
    }
    // All sent: nothing waits, and push arms no timer while a flush runs.
    attempt = 0;
  }

  /** Sends everything buffered; resolves when done (sent, dropped or put back for a retry). */
  function flush(keepalive?: boolean): Promise<void> {
    // An idle sender starts at once: the batch is taken before the caller pushes more.
    return (sending = attempt ? sending.then(() => sendAll(keepalive)) : sendAll(keepalive));
  }

  /** Buffers `event`; throws, buffering nothing, for one that JSON cannot hold (a `BigInt`, a cycle). */
  function push(event: DiagnosticEvent): void {
    if (closed) return;
    buffer.push(JSON.stringify(event));
    bound();
    // While a flush is in flight or waits for its retry, it owns the timer and the next send.
    if (attempt) return;
    if (buffer.length < options.flushAt) {
      if (timer === undefined) setTimer(flushInterval);
    } else void flush();
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
     * nothing about the flags. Throws for a value JSON cannot hold.
     */
    track(details: EvaluationDetails, userId: string): void {
      if (served.get(details) === userId) return;
      served.set(details, userId);
      const { key, reason, value, version, errorCode } = details;
      // Bounded even when nothing flushes (flushInterval 0): at worst a combination is reported twice.
      if (combinations.size >= MAX_COMBINATIONS) combinations.clear();
      if (errorCode === 'FLAG_NOT_FOUND') {
        if (isNew(unknownKeys, key)) push({ type: 'unregistered_flag', key });
      } else if (version !== null && isNew(combinations, JSON.stringify([key, userId, value]))) {
        push({ type: 'evaluation', key, reason, value: value ?? null, userId });
      }
    },
    /** Buffers the `error` event of an error reported through `onError`, without the SDK key. */
    error(error: FlagplaneError): void {
      push({ type: 'error', message: error.message.replaceAll(options.sdkKey, '[sdk key]').slice(0, 2048) });
    },
    flush,
    /** Flushes once more with keepalive; later events are not buffered, and no timer or page listener is left. */
    close(): Promise<void> {
      closed = true;
      stopPageHide();
      return flush(true);
    },
  };
}

export type EventSender = ReturnType<typeof createEventSender>;
