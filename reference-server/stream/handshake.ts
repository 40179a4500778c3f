import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../http/auth';
import type { ErrorBody } from '../http/responses';
import { errorBody } from '../http/responses';
import { KEY_PROTOCOL_PREFIX, STREAM_PROTOCOL } from './messages';

/** Selects `flagplane.v1` and nothing else: echoing `flagplane.key.<sdkKey>` would leak the key. */
export function selectProtocol(offered: Set<string>): string | false {
  return offered.has(STREAM_PROTOCOL) ? STREAM_PROTOCOL : false;
}

/** The SDK key of a handshake: a `flagplane.key.<sdkKey>` subprotocol first, else `Authorization: Bearer`. */
export function keyFromHandshake(req: IncomingMessage): string | undefined {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((entry) => entry.trim());
  const fromProtocol = offered.find((entry) => entry.startsWith(KEY_PROTOCOL_PREFIX));
  return fromProtocol !== undefined ? fromProtocol.slice(KEY_PROTOCOL_PREFIX.length) : bearerToken(req.headers);
}

export interface HandshakeRefusal {
  status: 400 | 405;
  body: ErrorBody;
  headers: Readonly<Record<string, string>>;
}

/** The answer to a handshake `ws` refuses; `message` is its reason, e.g. "Invalid Upgrade header". */
export function handshakeRefusal(req: IncomingMessage, message: string): HandshakeRefusal {
  if (req.method !== 'GET') {
    return { status: 405, body: errorBody('method_not_allowed', `${req.method} cannot open a WebSocket; use GET`), headers: { Allow: 'GET' } };
  }
  const version = Number(req.headers['sec-websocket-version']);
  const headers: Record<string, string> = version === 13 || version === 8 ? {} : { 'Sec-WebSocket-Version': '13' };
  return { status: 400, body: errorBody('invalid_request', `WebSocket handshake refused: ${message}`), headers };
}
