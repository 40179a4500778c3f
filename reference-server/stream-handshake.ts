import type { IncomingMessage } from 'node:http';
import { bearerToken } from './auth';
import { KEY_PROTOCOL_PREFIX, STREAM_PROTOCOL } from './stream-messages';

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
