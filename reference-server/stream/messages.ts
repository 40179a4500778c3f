/** Stream protocol 1 (protocol.md §6): names, close codes, and the pure parts of the message exchange. */
import { isRecord } from '../../src/shared/guards';
import { isNonNegativeInteger } from '../validation/numbers';

export const STREAM_PATH = '/sdk/v1/stream';
export const STREAM_PROTOCOL = 'flagplane.v1';
export const KEY_PROTOCOL_PREFIX = 'flagplane.key.';

export const CLOSE_CODES = {
  normal: 1000,
  goingAway: 1001,
  protocolError: 4400,
  badKey: 4401,
  revoked: 4403,
} as const;

export type ResyncReason = 'ahead-of-server' | 'unknown-version' | 'operator';

export type ServerMessage =
  | { type: 'connected'; protocol: 1; environmentId: string; version: number; heartbeatMs: number }
  | { type: 'snapshot.updated'; environmentId: string; version: number }
  | { type: 'snapshot.resync'; environmentId: string; version: number; reason: ResyncReason }
  | { type: 'ping'; ts: number }
  | { type: 'pong'; ts: number };

/**
 * A message serialised once, to be sent as it is to any number of streams (a publish
 * announces the same bytes to every subscriber).
 */
export function encodeMessage(message: ServerMessage): Buffer {
  return Buffer.from(JSON.stringify(message), 'utf8');
}

export type ClientFrame =
  | { type: 'subscribe'; environmentId: string; lastKnownVersion: number | null }
  | { type: 'ping'; ts: number }
  | { type: 'pong'; ts: number };

export type FrameParse = { ok: true; frame: ClientFrame } | { ok: false; reason: string };

function parseTimestampFrame(type: 'ping' | 'pong', frame: Record<string, unknown>): FrameParse {
  const { ts } = frame;
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return { ok: false, reason: `${type}.ts must be a number` };
  return { ok: true, frame: { type, ts } };
}

/** Parses one text frame from a client; `reason` names the fault and becomes the 4400 close reason. */
export function parseClientFrame(text: string): FrameParse {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'frame is not JSON' };
  }
  if (!isRecord(frame)) return { ok: false, reason: 'frame must be a JSON object' };
  const { type } = frame;
  if (typeof type !== 'string') return { ok: false, reason: 'frame has no string type' };
  if (type === 'ping' || type === 'pong') return parseTimestampFrame(type, frame);
  if (type !== 'subscribe') return { ok: false, reason: `unknown message type "${type.slice(0, 40)}"` };
  const { environmentId, lastKnownVersion } = frame;
  if (typeof environmentId !== 'string') return { ok: false, reason: 'subscribe.environmentId must be a string' };
  if (lastKnownVersion !== null && !isNonNegativeInteger(lastKnownVersion)) {
    return { ok: false, reason: 'subscribe.lastKnownVersion must be a non-negative integer or null' };
  }
  return { ok: true, frame: { type, environmentId, lastKnownVersion } };
}

export type SubscribeAnswer =
  | { type: 'none' }
  | { type: 'snapshot.updated' }
  | { type: 'snapshot.resync'; reason: 'ahead-of-server' | 'unknown-version' };

/** protocol.md §6.2: below current → updated at once; equal → nothing; above or null → resync. */
export function answerSubscribe(lastKnownVersion: number | null, current: number): SubscribeAnswer {
  if (lastKnownVersion === null) return { type: 'snapshot.resync', reason: 'unknown-version' };
  if (lastKnownVersion < current) return { type: 'snapshot.updated' };
  if (lastKnownVersion > current) return { type: 'snapshot.resync', reason: 'ahead-of-server' };
  return { type: 'none' };
}

/** A close reason must fit in 123 bytes of UTF-8 (RFC 6455 §5.5). */
export function closeReason(reason: string): string {
  let fitted = reason;
  while (Buffer.byteLength(fitted) > 123) fitted = fitted.slice(0, -1);
  return fitted;
}
