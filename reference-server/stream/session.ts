import type { RawData, WebSocket } from 'ws';
import { checkSdkKey } from '../http/auth';
import type { KeyStore } from '../stores/key-store';
import type { ServerMessage } from './messages';
import { answerSubscribe, CLOSE_CODES, closeReason, parseClientFrame, STREAM_PROTOCOL } from './messages';

/** One open stream, as tests may inspect it. */
export interface StreamSession {
  readonly ws: WebSocket;
  /** The key the client offered, known before authentication finishes. */
  readonly offeredKey: string | undefined;
  phase: 'authenticating' | 'open';
  environmentId: string | undefined;
  subscribed: boolean;
  /**
   * The newest version this stream was told of by `snapshot.updated` or a subscribe answer
   * (0 before): a fan-out still under way skips a stream that already heard its version.
   */
  announced: number;
  /** Cleared before each transport ping, set again by the pong. */
  alive: boolean;
  authTimer: ReturnType<typeof setTimeout> | undefined;
}

/** What a session reads of the server. */
export interface SessionContext {
  readonly keys: KeyStore;
  readonly heartbeatMs: number;
  readonly connectedDelayMs: number;
  /** The environment's `current` version, 0 when unknown. */
  currentVersion(environmentId: string): number;
  /** Called once, when the stream first subscribes: publishes reach it from then on. */
  onSubscribed(session: StreamSession): void;
}

// `ignoreBOM` keeps a leading BOM in the text, so such a frame is refused as not JSON.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A session that has not yet authenticated. */
export function createSession(ws: WebSocket, offeredKey: string | undefined): StreamSession {
  return { ws, offeredKey, phase: 'authenticating', environmentId: undefined, subscribed: false, announced: 0, alive: true, authTimer: undefined };
}

/** Sends to an open stream; false when the stream is closing or closed. */
export function send(session: StreamSession, message: ServerMessage): boolean {
  if (session.ws.readyState !== session.ws.OPEN) return false;
  session.ws.send(JSON.stringify(message));
  return true;
}

/** Sends a frame serialised once for many streams (encodeMessage); false when the stream is closing or closed. */
export function sendEncoded(session: StreamSession, frame: Buffer): boolean {
  if (session.ws.readyState !== session.ws.OPEN) return false;
  session.ws.send(frame, { binary: false });
  return true;
}

/** Closes the stream with `code` and `reason` unless it is closing already, and stops its authentication. */
export function closeSession(session: StreamSession, code: number, reason: string): void {
  clearTimeout(session.authTimer);
  if (session.ws.readyState === session.ws.OPEN || session.ws.readyState === session.ws.CONNECTING) {
    session.ws.close(code, closeReason(reason));
  }
}

function decodeText(data: RawData): string | undefined {
  try {
    return UTF8.decode(Array.isArray(data) ? Buffer.concat(data) : data);
  } catch {
    return undefined;
  }
}

function authenticate(session: StreamSession, context: SessionContext): void {
  session.authTimer = undefined;
  const check = checkSdkKey(session.offeredKey, context.keys);
  if (!check.ok) {
    closeSession(session, CLOSE_CODES.badKey, check.message);
    return;
  }
  const { environmentId } = check.record;
  session.phase = 'open';
  session.environmentId = environmentId;
  send(session, { type: 'connected', protocol: 1, environmentId, version: context.currentVersion(environmentId), heartbeatMs: context.heartbeatMs });
}

function onSubscribe(session: StreamSession, context: SessionContext, environmentId: string, lastKnownVersion: number | null): void {
  if (environmentId !== session.environmentId) {
    closeSession(session, CLOSE_CODES.protocolError, `subscribe for environment "${environmentId}", but the key belongs to "${session.environmentId}"`);
    return;
  }
  if (!session.subscribed) {
    session.subscribed = true;
    context.onSubscribed(session);
  }
  const version = context.currentVersion(environmentId);
  session.announced = version;
  const answer = answerSubscribe(lastKnownVersion, version);
  if (answer.type === 'snapshot.updated') send(session, { type: answer.type, environmentId, version });
  if (answer.type === 'snapshot.resync') send(session, { type: answer.type, environmentId, version, reason: answer.reason });
}

function onMessage(session: StreamSession, context: SessionContext, data: RawData, isBinary: boolean): void {
  if (session.ws.readyState !== session.ws.OPEN) return;
  if (session.phase !== 'open') {
    closeSession(session, CLOSE_CODES.protocolError, 'a frame arrived before connected was sent');
    return;
  }
  if (isBinary) {
    closeSession(session, CLOSE_CODES.protocolError, 'binary frames are not supported');
    return;
  }
  const text = decodeText(data);
  if (text === undefined) {
    closeSession(session, CLOSE_CODES.protocolError, 'frame is not UTF-8 text, so not JSON');
    return;
  }
  const parsed = parseClientFrame(text);
  if (!parsed.ok) {
    closeSession(session, CLOSE_CODES.protocolError, parsed.reason);
    return;
  }
  const { frame } = parsed;
  if (frame.type === 'subscribe') onSubscribe(session, context, frame.environmentId, frame.lastKnownVersion);
  else if (frame.type === 'ping') send(session, { type: 'pong', ts: frame.ts });
}

/**
 * Runs a session on its socket: answers pongs and frames, refuses a socket without the
 * stream subprotocol, and authenticates the offered key (after `connectedDelayMs`).
 */
export function runSession(session: StreamSession, context: SessionContext): void {
  const { ws } = session;
  // An 'error' is always followed by 'close'; without a listener it would be thrown.
  ws.on('error', () => undefined);
  ws.on('pong', () => {
    session.alive = true;
  });
  ws.on('message', (data, isBinary) => onMessage(session, context, data, isBinary));
  if (ws.protocol !== STREAM_PROTOCOL) {
    closeSession(session, CLOSE_CODES.protocolError, `the client must offer the ${STREAM_PROTOCOL} subprotocol`);
    return;
  }
  if (context.connectedDelayMs > 0) session.authTimer = setTimeout(() => authenticate(session, context), context.connectedDelayMs);
  else authenticate(session, context);
}
