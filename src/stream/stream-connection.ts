import type { Scheduler } from '../shared/scheduler';
import type { StreamEventOpener, StreamSocket, SocketOpener } from './socket-types';
import type { StreamError } from './stream-error';
import type { StreamConnectionState, StreamEvent, StreamNotifyKind } from './stream-machine';
import { initialStreamState, streamTransition } from './stream-machine';
import { tabHandover } from './tab-handover';
import type { TabLock } from '../platform/tab-lock';

export interface StreamConnectionOptions {
  /** The WebSocket gateway origin ({ws_url}); `http(s):` is mapped to `ws(s):`. */
  streamUrl: string;
  sdkKey: string;
  transport: SocketOpener;
  /** Every timer and the jitter go through it. */
  scheduler: Scheduler;
  /** The version of the snapshot the client holds, for `subscribe`; `null` when it has none. Read as each event is handled. */
  lastKnownVersion(): number | null;
  /** The server announced a new version (`updated`) or asks for a refetch (`resync`). */
  onNotify(kind: StreamNotifyKind, version: number): void;
  /** Every change of the connection after the initial `connecting` (not reported), including `stopped` during `close()`. */
  onConnectionChange(connection: StreamConnectionState): void;
  /** Every stream failure (protocol.md §6.4); the stream carries on unless it reports `stopped`. */
  onError(error: StreamError): void;
  /**
   * How long the socket may take to open, then the server to send `connected`, before the
   * attempt counts as failed (reported, then a reconnect with backoff); 0 for 30 s. The client
   * passes its `requestTimeout`.
   * @default 30000
   */
  requestTimeout?: number;
  /**
   * Given by a client that shares snapshots with its other tabs (`syncTabs`): resolves once its
   * fetch in flight, or the one that replaced it, has settled. The tabs of one SDK key then take
   * turns on a lock, so that one fetches per publish and the others take the snapshot from the
   * tab channel (docs/client.md). Absent or `false`, every notice is handed on at once.
   */
  fetched?: false | (() => Promise<void>);
  /**
   * The lock the tabs share.
   * @default the Web Locks API (`navigator.locks`) where there is one; without it, no turns
   */
  tabLock?: TabLock;
}

/** What the client passes when it opens the stream: everything but the socket opener, which the transport brings. */
export type StreamConnectOptions = Omit<StreamConnectionOptions, 'transport'>;

/** A running stream; see {@link createStreamConnection}. */
export interface StreamConnection {
  /** Closes the socket with 1000 and clears every timer; no callback runs after it returns. Idempotent. */
  close(): void;
}

/**
 * `{ws_url}/sdk/v1/stream`, with `http:` → `ws:` and `https:` → `wss:`; `streamUrl` may be the
 * gateway's origin (or a path under it) or the stream's whole URL, as the reference server prints it.
 */
export function streamEndpoint(streamUrl: string): string {
  const url = streamUrl.replace(/^http/, 'ws').replace(/\/+$/, '');
  return url.endsWith('/sdk/v1/stream') ? url : url + '/sdk/v1/stream';
}

/** A {@link SocketOpener}, seen as a {@link StreamEventOpener}: each handler reports one socket event. */
const fromSocketOpener =
  (open: SocketOpener, sdkKey: string): StreamEventOpener =>
  (url, protocols, on) =>
    open(url, { protocols, sdkKey }, {
      onOpen: () => on({ type: 'open' }),
      onMessage: (data) => on({ type: 'message', data }),
      onClose: (code, reason) => on({ type: 'close', code, reason }),
      onError: (cause) => on({ type: 'error', cause }),
    });

/** {@link openStream} on a {@link SocketOpener}: how `defineStreamTransport` plugs any socket. */
export function createStreamConnection(options: StreamConnectionOptions): StreamConnection {
  return openStream(options, fromSocketOpener(options.transport, options.sdkKey));
}

/**
 * Opens the stream at once and keeps it open: reconnects with backoff (within a second after a
 * going-away close), answers pings, detects silence, and stops for good on 4401 or 4403
 * (protocol.md §6). This is the shell
 * around `streamTransition`: it owns the socket and the timer and carries out each step.
 * Callbacks never run inside this call, except `onError` then `onConnectionChange('stopped')`
 * when the opener throws (a socket that can never open). Callbacks must not throw.
 */
export function openStream(options: StreamConnectOptions, openSocket: StreamEventOpener): StreamConnection {
  const { scheduler } = options;
  const url = streamEndpoint(options.streamUrl);
  const protocols = ['flagplane.v1', 'flagplane.key.' + options.sdkKey];
  let state = { ...initialStreamState, handshakeMs: options.requestTimeout || 30_000 };
  let socket: StreamSocket | undefined;
  // The one timer: the reconnect delay and the silence window are never pending together.
  let timer: unknown;
  const tabs = tabHandover(options, state.handshakeMs, () => state.connection == 'stopped');

  function open(): void {
    let mine: StreamSocket | undefined;
    try {
      socket = mine = openSocket(url, protocols, (event) => {
        // A callback that throws must not escape into the socket's event dispatch (where
        // Node's EventTarget would crash the process).
        try {
          // A socket that was dropped (or replaced) is no longer `socket`: its late events must
          // not reach dispatch, nor any callback.
          if (socket === mine) dispatch(event);
          // Stopped while it was connecting (below): closed now that it is open.
          else if (event.type == 'open') mine!.close(1000);
        } catch {}
      });
    } catch (cause) {
      dispatch({ type: 'open-failed', cause });
    }
  }

  function dispatch(event: StreamEvent): void {
    const before = state;
    const step = streamTransition(state, event, scheduler.random(), options.lastKnownVersion());
    state = step.state;
    scheduler.clearTimeout(timer);
    // A cleared id left behind is harmless: clearing it again is a no-op.
    if (step.timer !== null) timer = scheduler.setTimeout(() => dispatch({ type: 'timer' }), step.timer);
    // A socket is open exactly while connecting or streaming.
    if (state.connection === 'reconnecting' || state.connection === 'stopped') {
      if (state.connection == 'stopped') tabs.stop();
      // Forgotten first: a socket whose close() fires its close event at once must find it gone.
      const closing = socket;
      socket = undefined;
      // A socket another request's I/O owns (Cloudflare Workers) throws on close: dropped all the same.
      try {
        // Closing a browser WebSocket still connecting logs "closed before the connection is
        // established": React StrictMode's first client, closed as soon as it is made, would
        // print it in every app. Stopped, such a socket is closed once it opens (above). A
        // reconnect still closes it at once: one socket per host may be connecting (RFC 6455 §4.1).
        if (state.connection == 'reconnecting' || closing?.readyState !== 0) closing?.close(1000);
      } catch {}
    } else if (!socket) open();
    if (step.send) socket?.send(JSON.stringify(step.send));
    if (step.notify) tabs.notify(step.notify.kind, step.notify.version);
    if (step.report) options.onError(step.report);
    // A callback that called close() ran a newer step; the change of this one is then stale.
    if (state === step.state && state.connection !== before.connection) options.onConnectionChange(state.connection);
  }

  dispatch({ type: 'start' });
  return { close: () => dispatch({ type: 'stop' }) };
}
