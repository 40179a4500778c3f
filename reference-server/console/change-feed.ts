/**
 * Follows the admin change feed (GET /admin/v1/changes, Server-Sent Events) with `fetch` and a
 * streamed body: EventSource cannot send the `Authorization` header. A dropped or silent feed
 * is opened again after a backoff; every (re)connection starts with `ready`, after which the
 * console reads everything once — what happened while it was away is then on screen.
 */
import { nextDelay } from '../../src/shared/backoff';
import type { AdminChange, FeedReady } from '../routes/admin-change-kinds';
import { AdminError, errorFromBody, isAbort } from './api';
import { createSseReader, type FeedEvent } from './sse-reader';

/** What the console shows of the feed. */
export type FeedConnection = 'connecting' | 'live' | 'reconnecting';

/** Reconnection delays: 0.5 s doubling up to 30 s, plus up to half of it as jitter. */
export const FEED_RETRY = { base: 500, max: 30_000, jitter: 0.5 };

/** A one-shot timer and its cancel function. */
export type Schedule = (callback: () => void, ms: number) => () => void;

export interface FollowOptions {
  /** The page's origin. */
  origin: string;
  token: string;
  /** After each (re)connection: read everything once. */
  onReady(): void;
  onChange(change: AdminChange): void;
  onConnection(connection: FeedConnection): void;
  /** A 401: the feed stops; asking again with the same token would only be refused again. */
  onRefused(error: AdminError): void;
  fetch?: typeof fetch;
  schedule?: Schedule;
  random?: () => number;
}

const realSchedule: Schedule = (callback, ms) => {
  const id = setTimeout(callback, ms);
  return () => clearTimeout(id);
};

/** A feed that sent nothing for two heartbeats and this much is taken for dead (a proxy holding it). */
const SILENCE_GRACE_MS = 5000;

/** Starts following; the returned function stops, aborting the request and clearing every timer. */
export function followChanges(options: FollowOptions): () => void {
  const { origin, token, onReady, onChange, onConnection, onRefused, fetch: fetchFn = (...a) => fetch(...a), schedule = realSchedule, random = Math.random } = options;
  let stopped = false;
  let attempt = 0;
  let controller: AbortController | undefined;
  let cancelTimer: () => void = () => undefined;
  let cancelWatchdog: () => void = () => undefined;

  const retry = (atLeastMs = 0) => {
    controller?.abort();
    cancelWatchdog();
    if (stopped) return;
    attempt += 1;
    onConnection('reconnecting');
    cancelTimer = schedule(() => void connect(), Math.max(atLeastMs, nextDelay(attempt, { ...FEED_RETRY, random: random() })));
  };
  /** How long the open feed may stay silent: set by `ready`, restarted by every byte. */
  let silenceMs = 0;
  const watch = () => {
    cancelWatchdog();
    if (silenceMs > 0) cancelWatchdog = schedule(() => retry(), silenceMs);
  };
  const dispatch = (event: FeedEvent) => {
    if (event.event === 'ready') {
      attempt = 0;
      silenceMs = 2 * (JSON.parse(event.data) as FeedReady).heartbeatMs + SILENCE_GRACE_MS;
      watch();
      onConnection('live');
      onReady();
      return;
    }
    onChange(JSON.parse(event.data) as AdminChange);
  };
  const read = async (body: ReadableStream<Uint8Array>, signal: AbortSignal) => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const sse = createSseReader(dispatch);
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) return;
      watch();
      sse.push(decoder.decode(value, { stream: true }));
    }
  };
  async function connect() {
    controller = new AbortController();
    const { signal } = controller;
    silenceMs = 0;
    try {
      const response = await fetchFn(`${origin}/admin/v1/changes`, { headers: { authorization: `Bearer ${token}` }, signal, cache: 'no-store' });
      if (response.status === 401) {
        stopped = true;
        onRefused(errorFromBody(401, await response.text()));
        return;
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        return retry(1000 * (Number(response.headers.get('retry-after')) || 0));
      }
      await read(response.body, signal);
    } catch (error) {
      // Our own abort (stop, or the watchdog's retry) has been dealt with already.
      if (signal.aborted || isAbort(error)) return;
    }
    if (!stopped && !signal.aborted) retry();
  }

  onConnection('connecting');
  void connect();
  return () => {
    stopped = true;
    cancelTimer();
    cancelWatchdog();
    controller?.abort();
  };
}
