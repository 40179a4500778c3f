import type { SocketOpener } from '../src/stream/socket-types';
import { defineStreamTransport, type StreamTransport } from '../src/stream/stream-transport';
import { wsOpener } from './ws-opener';

/**
 * The socket opener on the `ws` package, for Node 20 (which has no global WebSocket).
 * It sends the SDK key as `Authorization: Bearer <sdkKey>` and offers the other protocols
 * only, so the key stays out of `Sec-WebSocket-Protocol` (protocol.md §6.1).
 */
export const openWs: SocketOpener = wsOpener(() => import('ws'));

/** The stream transport for Node 20: pass it as `streamTransport`. Needs `ws` installed. */
export const wsTransport: StreamTransport = defineStreamTransport(openWs);
