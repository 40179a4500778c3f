import { nextDelay, RETRY_POLICY } from '../shared/backoff';
import { isRecord } from '../shared/guards';
import { parseJson } from '../shared/parse-json';
import { messageOf } from '../shared/errors';
import { StreamError } from './stream-error';

/**
 * The stream's decisions (protocol.md §6, §8) as a pure transition function: no timers, no
 * I/O. What the machine needs from outside (the last known version, a random number for
 * jitter) arrives as arguments, read by the shell as each event happens, so a table of
 * (state, event, random, lastKnownVersion) → step tests all of it.
 */

/** Where the stream stands. `stopped` is final: the shell drops the socket and the timer. */
export type StreamConnectionState = 'connecting' | 'streaming' | 'reconnecting' | 'stopped';

export interface StreamState {
  readonly connection: StreamConnectionState;
  /**
   * Reconnects scheduled since the last `connected` (a going-away one after it not counted);
   * the next one waits `nextDelay(attempt + 1)`.
   */
  readonly attempt: number;
  /** From the last `connected` (15000 before one); the silence window is twice this. */
  readonly heartbeatMs: number;
  /**
   * How long the upgrade, then the `connected` frame, may each take: the client's
   * `requestTimeout`. A proxy (or a runtime) that holds the upgrade is a failure, not a wait.
   */
  readonly handshakeMs: number;
}

export type StreamNotifyKind = 'updated' | 'resync';

/** A frame the client sends. */
export type StreamClientMessage =
  | { type: 'subscribe'; environmentId: string; lastKnownVersion: number | null }
  | { type: 'pong'; ts: number };

/**
 * What happened. The socket's events are shaped as a WebSocket's own `open`, `message` and
 * `close` events, so that one can report them as they are; `start` (dispatched once, first) and
 * `stop` are the client's requests.
 */
export type StreamEvent =
  | { type: 'start' }
  | { type: 'open' }
  /** One frame, raw: protocol 1 frames are text, anything else (a binary frame) breaks it. */
  | { type: 'message'; data: unknown }
  | { type: 'close'; code: number; reason: string }
  | { type: 'error'; cause: unknown }
  /** The transport threw: this socket can never open (bad URL or key, no WebSocket). */
  | { type: 'open-failed'; cause: unknown }
  /** The timer armed by the last step fired. */
  | { type: 'timer' }
  | { type: 'stop' };

/** What happens to a socket: what a `StreamEventOpener` reports. */
export type SocketEvent = Extract<StreamEvent, { type: 'open' | 'message' | 'close' | 'error' }>;

/**
 * The next state and what the shell does about it, in this order: `timer`, the socket, `send`,
 * then the callbacks `notify` or `report`, then a change of `state.connection`. A socket is open
 * exactly while `connecting` or `streaming`: the shell opens one when the state needs one and
 * has none, and closes it (with 1000) when the state is `reconnecting` or `stopped`.
 */
export interface StreamStep {
  readonly state: StreamState;
  /**
   * Re-arms the one timer with this delay in ms (replacing a pending one), or clears it
   * (`null`). It is the reconnect delay while `reconnecting` and the silence window
   * otherwise: the two are never needed together.
   */
  readonly timer: number | null;
  readonly send?: StreamClientMessage;
  readonly notify?: { kind: StreamNotifyKind; version: number };
  readonly report?: StreamError;
}

/** Before the first socket: connecting, no reconnects yet, the protocol's default heartbeat, a 30 s handshake. */
export const initialStreamState: StreamState = { connection: 'connecting', attempt: 0, heartbeatMs: 15_000, handshakeMs: 30_000 };

/** The members of server frames the client reads; each is checked before use. */
interface ServerFrame {
  type?: unknown;
  environmentId?: unknown;
  heartbeatMs?: unknown;
  version?: unknown;
  ts?: unknown;
}

/**
 * Any frame proves the connection alive: the silence window starts again. Until `connected`,
 * the handshake's window: the socket opening and the first frame each get `handshakeMs`.
 */
const alive = (state: StreamState): StreamStep => ({ state, timer: windowOf(state) });

/** The silence window; until `connected`, the handshake's. */
const windowOf = (state: StreamState) => (state.connection === 'connecting' ? state.handshakeMs : 2 * state.heartbeatMs);

// Connecting: the shell opens a socket, and the handshake's window starts.
const connect = (state: StreamState): StreamStep => alive({ ...state, connection: 'connecting' });

const stop = (state: StreamState, report?: StreamError): StreamStep => ({ state: { ...state, connection: 'stopped' }, timer: null, report });

/** Drops the socket and reconnects after the backoff delay (protocol.md §8): 1 s doubling to 60 s, plus up to 20 % jitter. */
function reconnect(state: StreamState, random: number, report?: StreamError): StreamStep {
  const attempt = state.attempt + 1;
  const timer = nextDelay(attempt, { ...RETRY_POLICY, random });
  return { state: { ...state, connection: 'reconnecting', attempt }, timer, report };
}

function onFrame(state: StreamState, data: string, random: number, lastKnownVersion: number | null): StreamStep {
  const frame = parseJson(data) as ServerFrame | undefined;
  const { type, environmentId, heartbeatMs, version, ts } = Object(frame) as ServerFrame;
  // Not a JSON object (an array is not one either), or a `connected` without an environment to
  // subscribe to: both treated like a 4400.
  if (!isRecord(frame) || (type === 'connected' && typeof environmentId != 'string')) {
    return reconnect(state, random, new StreamError(null, 'bad frame ' + data.slice(0, 60)));
  }
  if (type === 'connected') {
    return {
      ...alive({ ...state, connection: 'streaming', attempt: 0, heartbeatMs: typeof heartbeatMs == 'number' && heartbeatMs > 0 ? heartbeatMs : state.heartbeatMs }),
      send: { type: 'subscribe', environmentId: environmentId as string, lastKnownVersion },
    };
  }
  // Unknown types, and known ones without the number the client needs, are otherwise
  // ignored: servers may add messages and members (protocol.md §6.2).
  if ((type === 'snapshot.updated' || type === 'snapshot.resync') && Number.isSafeInteger(version) && (version as number) >= 0) {
    // 'snapshot.updated'.slice(9) is 'updated', 'snapshot.resync'.slice(9) is 'resync'.
    return { ...alive(state), notify: { kind: type.slice(9) as StreamNotifyKind, version: version as number } };
  }
  // The server closes with 4400 on any client frame before `connected`.
  if (type === 'ping' && Number.isFinite(ts) && state.connection === 'streaming') return { ...alive(state), send: { type: 'pong', ts: ts as number } };
  return alive(state);
}

/**
 * The stream's transition function; `state` is never mutated. The shell reads the last two as
 * the event happens: `random`, in [0, 1), is the jitter of a reconnect the event may cause;
 * `lastKnownVersion` fills the `subscribe` a `connected` triggers.
 *
 * The shell delivers only the events of the current socket, so none while `reconnecting` (there
 * is no socket) and none once `stopped` (no socket, no timer) but another `stop`, which changes
 * nothing: the machine need not guard against stale events.
 */
export function streamTransition(state: StreamState, event: StreamEvent, random: number, lastKnownVersion: number | null): StreamStep {
  switch (event.type) {
    case 'start':
      return connect(state);
    case 'open':
      return alive(state);
    case 'message':
      return onFrame(state, typeof event.data == 'string' ? event.data : '', random, lastKnownVersion);
    case 'close': {
      const { code, reason } = event;
      if (code === 4401 || code === 4403) return stop(state, new StreamError(code, reason));
      // Going away (protocol.md §6.4): the instance is stopping, not failing. No report, no
      // backoff (the attempts stay at 0, as `connected` left them): back after `random` × 1 s,
      // which spreads the clients of a stopping instance over a second, inside the 2 s a rolling
      // restart allows. Going away again before `connected` (a server that closes every stream
      // at once) is a failure like any other: the backoff grows.
      if (code === 1001 && state.connection === 'streaming') return { state: { ...state, connection: 'reconnecting' }, timer: random * 1000 };
      return reconnect(state, random, code === 4400 ? new StreamError(code, reason) : undefined);
    }
    case 'error':
      return reconnect(state, random, new StreamError(null, 'transport error', event.cause));
    case 'open-failed':
      return stop(state, new StreamError(null, `cannot open: ${messageOf(event.cause)}`, event.cause));
    case 'timer':
      if (state.connection === 'reconnecting') return connect(state);
      return reconnect(state, random, new StreamError(null, `silent for ${windowOf(state)} ms`));
    case 'stop':
      return stop(state);
  }
}
