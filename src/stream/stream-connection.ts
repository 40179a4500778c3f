import type { Scheduler } from '../scheduler';
import type { StreamSocket, SocketOpener } from './socket-types';
import type { StreamError } from './stream-error';
import type { StreamConnectionState, StreamEvent, StreamNotifyKind } from './stream-machine';
import { initialStreamState, streamTransition } from './stream-machine';

export interface StreamConnectionOptions {
  /** The WebSocket gateway origin ({ws_url}); `http(s):` is mapped to `ws(s):`. */
  streamUrl: string;
  sdkKey: string;
  transport: SocketOpener;
  /** Every timer and the jitter go through it. */
  scheduler: Scheduler;
  /** The version of the snapshot the client holds, for `subscribe`; `null` when it has none. Read as each frame arrives. */
  lastKnownVersion(): number | null;
  /** The server announced a new version (`updated`) or asks for a refetch (`resync`). */
  onNotify(kind: StreamNotifyKind, version: number): void;
  /** Every change of the connection after the initial `connecting` (not reported), including `stopped` during `close()`. */
  onConnectionChange(connection: StreamConnectionState): void;
  /** Every stream failure (protocol.md §6.4); the stream carries on unless it reports `stopped`. */
  onError(error: StreamError): void;
}

/** A running stream; see {@link createStreamConnection}. */
export interface StreamConnection {
  /** Closes the socket with 1000 and clears every timer; no callback runs after it returns. Idempotent. */
  close(): void;
}

/** `{ws_url}/sdk/v1/stream`, with `http:` → `ws:` and `https:` → `wss:`. */
export function streamEndpoint(streamUrl: string): string {
  return streamUrl.replace(/^http/, 'ws').replace(/\/+$/, '') + '/sdk/v1/stream';
}

/**
 * Opens the stream at once and keeps it open: reconnects with backoff, answers pings,
 * detects silence, and stops for good on 4401 or 4403 (protocol.md §6). This is the shell
 * around `streamTransition`: it owns the socket and the timer and carries out each step.
 * Callbacks never run inside this call, except `onError` then `onConnectionChange('stopped')`
 * when the transport throws (a socket that can never open). Callbacks must not throw.
 */
export function createStreamConnection(options: StreamConnectionOptions): StreamConnection {
  const { scheduler, sdkKey } = options;
  const url = streamEndpoint(options.streamUrl);
  const protocols = ['flagplane.v1', 'flagplane.key.' + sdkKey];
  let state = initialStreamState;
  let socket: StreamSocket | undefined;
  // Bumped whenever the socket is dropped, so that a dropped socket's late events are ignored.
  let generation = 0;
  // The one timer: the reconnect delay and the silence window are never pending together.
  let timer: unknown;

  function open(): void {
    const mine = ++generation;
    // Checked before an event is even built: a dropped socket must not reach any callback.
    const live = () => mine === generation;
    try {
      socket = options.transport(url, { protocols, sdkKey }, {
        onOpen: () => live() && dispatch({ type: 'socket-open' }),
        onMessage: (data) => live() && dispatch({ type: 'message', data, lastKnownVersion: options.lastKnownVersion(), random: scheduler.random() }),
        onClose: (code, reason) => live() && dispatch({ type: 'socket-closed', code, reason, random: scheduler.random() }),
        onError: (cause) => live() && dispatch({ type: 'socket-error', cause, random: scheduler.random() }),
      });
    } catch (cause) {
      dispatch({ type: 'open-failed', cause });
    }
  }

  function dispatch(event: StreamEvent): void {
    const before = state.connection;
    const step = streamTransition(state, event);
    const { timer: delay, send, notify, report } = step;
    // A callback that calls close() runs a newer step; what is left of this one is then stale.
    const current = () => state === step.state;
    state = step.state;
    if (delay !== undefined) {
      scheduler.clearTimeout(timer);
      timer = delay === null ? undefined : scheduler.setTimeout(() => dispatch({ type: 'timer-fired', random: scheduler.random() }), delay);
    }
    if (step.socket === 'close') {
      generation++;
      socket?.close(1000);
      socket = undefined;
    }
    if (step.socket === 'open') open();
    if (send) socket?.send(JSON.stringify(send));
    if (notify) options.onNotify(notify.kind, notify.version);
    if (report) options.onError(report);
    if (current() && state.connection !== before) options.onConnectionChange(state.connection);
  }

  dispatch({ type: 'connect-requested' });
  return { close: () => dispatch({ type: 'close-requested' }) };
}
