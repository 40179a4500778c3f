import { nextDelay } from '../backoff';
import { StreamError } from './stream-error';

/**
 * The stream's decisions (protocol.md §6, §8) as a pure transition function: no timers, no
 * I/O. What the machine needs from outside (the last known version, a random number for
 * jitter) arrives inside the events, as in the fetch machine (src/transition.ts), so a table
 * of (state, event) → step tests all of it.
 */

/** Where the stream stands. `stopped` is final: every later event is ignored. */
export type StreamConnectionState = 'connecting' | 'streaming' | 'reconnecting' | 'stopped';

export interface StreamState {
  readonly connection: StreamConnectionState;
  /** Reconnects scheduled since the last `connected`; the next one waits `nextDelay(attempt + 1)`. */
  readonly attempt: number;
  /** From the last `connected` (15000 before one); the silence window is twice this. */
  readonly heartbeatMs: number;
  /** From the last `connected`; `null` before the first one. */
  readonly environmentId: string | null;
}

export type StreamNotifyKind = 'updated' | 'resync';

/** A frame the client sends. */
export type StreamClientMessage =
  | { type: 'subscribe'; environmentId: string; lastKnownVersion: number | null }
  | { type: 'pong'; ts: number };

/**
 * What happened: to the socket, to the timer, or a request of the client. `random`, a number
 * in [0, 1), is the jitter of the reconnect the event may cause.
 */
export type StreamEvent =
  /** Dispatched once, first. */
  | { type: 'connect-requested' }
  | { type: 'socket-open' }
  /** One text frame, raw; `lastKnownVersion` fills the `subscribe` that a `connected` triggers. */
  | { type: 'message'; data: string; lastKnownVersion: number | null; random: number }
  | { type: 'socket-closed'; code: number; reason: string; random: number }
  | { type: 'socket-error'; cause: unknown; random: number }
  /** The transport threw: this socket can never open (bad URL or key, no WebSocket). */
  | { type: 'open-failed'; cause: unknown }
  /** The timer armed by the last step that set `timer` fired. */
  | { type: 'timer-fired'; random: number }
  | { type: 'close-requested' };

/**
 * The next state and what the shell does about it, in this order: `timer`, `socket`, `send`,
 * then the callbacks `notify` or `report`, then a change of `state.connection`.
 */
export interface StreamStep {
  readonly state: StreamState;
  /**
   * Re-arms the one timer with this delay in ms (replacing a pending one), or clears it
   * (`null`). It is the reconnect delay while `reconnecting` and the silence window
   * otherwise: the two are never needed together.
   */
  readonly timer?: number | null;
  /** `close`: closes the current socket with 1000 (a no-op once closed) and stops listening to it. */
  readonly socket?: 'open' | 'close';
  readonly send?: StreamClientMessage;
  readonly notify?: { kind: StreamNotifyKind; version: number };
  readonly report?: StreamError;
}

/** Reconnect backoff (protocol.md §8): 1 s doubling to 60 s, plus up to 20 % jitter. */
export const STREAM_BACKOFF = { base: 1000, max: 60_000, jitter: 0.2 } as const;

/** Before the first socket: connecting, no reconnects yet, the protocol's default heartbeat. */
export const initialStreamState: StreamState = { connection: 'connecting', attempt: 0, heartbeatMs: 15_000, environmentId: null };

const isNumber = (value: unknown): value is number => typeof value == 'number';

/** The members of server frames the client reads; each is checked before use. */
interface ServerFrame {
  type?: unknown;
  environmentId?: unknown;
  heartbeatMs?: unknown;
  version?: unknown;
  ts?: unknown;
}

function reconnect(state: StreamState, random: number, report?: StreamError): StreamStep {
  const attempt = state.attempt + 1;
  const timer = nextDelay(attempt, { ...STREAM_BACKOFF, random });
  return { state: { ...state, connection: 'reconnecting', attempt }, timer, socket: 'close', report };
}

// Silence is armed before the socket opens, so a handshake that hangs counts as silence.
const connect = (state: StreamState): StreamStep => ({
  state: { ...state, connection: 'connecting' },
  timer: 2 * state.heartbeatMs,
  socket: 'open',
});

const stop = (state: StreamState, report?: StreamError): StreamStep => ({
  state: { ...state, connection: 'stopped' },
  timer: null,
  socket: 'close',
  report,
});

function onMessage(state: StreamState, { data, lastKnownVersion, random }: Extract<StreamEvent, { type: 'message' }>): StreamStep {
  let frame: ServerFrame | null = null;
  try {
    frame = JSON.parse(data);
  } catch {}
  const { type, environmentId, heartbeatMs, version, ts } = Object(frame) as ServerFrame;
  // Without an environment there is nothing to subscribe to: treated like a 4400.
  if (typeof frame != 'object' || !frame || (type === 'connected' && typeof environmentId != 'string')) {
    return reconnect(state, random, new StreamError(null, 'bad frame ' + data.slice(0, 60)));
  }
  if (type === 'connected') {
    const next: StreamState = {
      connection: 'streaming',
      attempt: 0,
      heartbeatMs: isNumber(heartbeatMs) && heartbeatMs > 0 ? heartbeatMs : state.heartbeatMs,
      environmentId: environmentId as string,
    };
    return { state: next, timer: 2 * next.heartbeatMs, send: { type: 'subscribe', environmentId: environmentId as string, lastKnownVersion } };
  }
  // Any frame proves the connection alive. Unknown types, and known ones without the number
  // the client needs, are otherwise ignored: servers may add messages and members (§6.2).
  const step = { state, timer: 2 * state.heartbeatMs };
  if ((type === 'snapshot.updated' || type === 'snapshot.resync') && isNumber(version)) {
    // 'snapshot.updated'.slice(9) is 'updated', 'snapshot.resync'.slice(9) is 'resync'.
    return { ...step, notify: { kind: type.slice(9) as StreamNotifyKind, version } };
  }
  // The server closes with 4400 on any client frame before `connected`.
  if (type === 'ping' && isNumber(ts) && state.connection === 'streaming') return { ...step, send: { type: 'pong', ts } };
  return step;
}

/** The stream's transition function; `state` is never mutated. */
export function streamTransition(state: StreamState, event: StreamEvent): StreamStep {
  const { connection } = state;
  // No socket exists while reconnecting, so socket events are stale there.
  if (connection === 'stopped' || (connection === 'reconnecting' && event.type !== 'timer-fired' && event.type !== 'close-requested')) {
    return { state };
  }
  switch (event.type) {
    case 'connect-requested':
      return connect(state);
    case 'socket-open':
      return { state, timer: 2 * state.heartbeatMs };
    case 'message':
      return onMessage(state, event);
    case 'socket-closed': {
      const { code, reason } = event;
      const error = code === 4400 || code === 4401 || code === 4403 ? new StreamError(code, reason) : undefined;
      return code === 4401 || code === 4403 ? stop(state, error) : reconnect(state, event.random, error);
    }
    case 'socket-error':
      return reconnect(state, event.random, new StreamError(null, 'transport error', event.cause));
    case 'timer-fired':
      return connection === 'reconnecting'
        ? connect(state)
        : reconnect(state, event.random, new StreamError(null, `silent for ${2 * state.heartbeatMs} ms`));
    case 'open-failed':
      return stop(state, new StreamError(null, 'cannot open', event.cause));
    case 'close-requested':
      return stop(state);
  }
}
