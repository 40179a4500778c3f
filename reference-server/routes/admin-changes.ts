import type { ServerResponse } from 'node:http';
import { errorResult, RouteError, writeResult } from '../http/responses';
import type { Route } from '../http/router';
import { createActivityTracker, type ActivitySources } from './admin-activity';
import { sseEvent, SSE_HEARTBEAT, type AdminChange, type FeedReady, type ReceivedKind } from './admin-change-kinds';

/** A repeating timer and its clear function; injected so tests can drive it. */
export type Every = (callback: () => void, ms: number) => () => void;

const realEvery: Every = (callback, ms) => {
  const id = setInterval(callback, ms);
  return () => clearInterval(id);
};

export interface ChangeFeedOptions extends ActivitySources {
  /** Feeds open at once; one more is answered 503. */
  maxFeeds: number;
  /** A comment line on every open feed this often, so proxies keep an idle response open. @default 20000 */
  heartbeatMs?: number;
  /** Stream counts and accepted events are reported at most this often. @default 1000 */
  activityMs?: number;
  every?: Every;
}

/** The admin change feed: GET /admin/v1/changes as Server-Sent Events. */
export interface ChangeFeed {
  /** Sends a change to every open feed. */
  announce(change: AdminChange): void;
  /** Counts accepted events; open feeds hear of them at the next activity tick. */
  received(environmentId: string, kind: ReceivedKind, count: number): void;
  /** Feeds open now. */
  readonly open: number;
  readonly route: Route;
  /** Ends every feed and clears every timer; later requests get 503. */
  close(): void;
}

/** A reader this far behind (bytes not yet sent) is cut off: it reconnects and reads everything again. */
const BACKLOG_LIMIT = 1024 * 1024;

const FEED_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // nginx buffers proxied responses unless told not to; a buffered feed delivers nothing.
  'X-Accel-Buffering': 'no',
  // Ending the feed then closes its connection: close() never waits for it to go idle.
  Connection: 'close',
};

export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const { maxFeeds, heartbeatMs = 20_000, activityMs = 1000, every = realEvery } = options;
  const feeds = new Set<ServerResponse>();
  const activity = createActivityTracker(options);
  let stopTimers: (() => void) | undefined;
  let closed = false;

  const write = (text: string) => {
    for (const res of feeds) {
      if (res.writableLength > BACKLOG_LIMIT) res.destroy();
      else res.write(text);
    }
  };
  const broadcast = (changes: readonly AdminChange[]) => {
    if (changes.length > 0) write(changes.map((change) => sseEvent(change.kind, change)).join(''));
  };
  // The timers run only while a feed is open: an instance nobody watches does no work for it.
  const startTimers = () => {
    activity.reset();
    const stopHeartbeat = every(() => write(SSE_HEARTBEAT), heartbeatMs);
    const stopActivity = every(() => broadcast(activity.drain()), activityMs);
    stopTimers = () => {
      stopHeartbeat();
      stopActivity();
      stopTimers = undefined;
    };
  };
  const attach = (res: ServerResponse) => {
    if (closed || feeds.size >= maxFeeds) {
      const why = closed ? 'the server is closing' : `${maxFeeds} change feeds are open already (limit changeFeeds)`;
      writeResult(res, errorResult(new RouteError(503, 'unavailable', why, undefined, { 'Retry-After': '5' })), {});
      return;
    }
    res.writeHead(200, FEED_HEADERS);
    const ready: FeedReady = { heartbeatMs };
    res.write(sseEvent('ready', ready));
    feeds.add(res);
    if (!stopTimers) startTimers();
    res.on('error', () => undefined);
    res.once('close', () => {
      feeds.delete(res);
      if (feeds.size === 0) stopTimers?.();
    });
  };

  return {
    announce: (change) => broadcast([change]),
    received(environmentId, kind, count) {
      if (feeds.size > 0) activity.received(environmentId, kind, count);
    },
    get open() {
      return feeds.size;
    },
    route: { pattern: '/admin/v1/changes', methods: { GET: () => ({ status: 200, takeover: attach }) } },
    close() {
      closed = true;
      stopTimers?.();
      for (const res of [...feeds]) res.end();
      feeds.clear();
    },
  };
}
