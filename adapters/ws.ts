import { WebSocket } from 'ws';
import type { StreamSocket, StreamSocketHandlers, SocketOpener } from '../src/stream/socket-types';
import { defineStreamTransport, type StreamTransport } from '../src/stream/stream-transport';

/** Runs a handler without letting it throw into the emitter: ws would crash the process. */
function safely(handler: () => void): void {
  try {
    handler();
  } catch {}
}

/**
 * The socket opener on the `ws` package, for Node 20 (which has no global WebSocket).
 * It sends the SDK key as `Authorization: Bearer <sdkKey>` and offers the other protocols
 * only, so the key stays out of `Sec-WebSocket-Protocol` (protocol.md §6.1).
 */
export const openWs: SocketOpener = (url, { protocols, sdkKey }, handlers: StreamSocketHandlers): StreamSocket => {
  const ws = new WebSocket(
    url,
    protocols.filter((protocol) => !protocol.startsWith('flagplane.key.')),
    { headers: { authorization: `Bearer ${sdkKey}` } },
  );
  ws.on('open', () => safely(handlers.onOpen));
  // Protocol 1 frames are text; a binary one becomes '', which the core rejects as not JSON.
  ws.on('message', (data, isBinary) => safely(() => handlers.onMessage(isBinary ? '' : data.toString())));
  ws.on('close', (code, reason) => safely(() => handlers.onClose(code, reason.toString())));
  // Also keeps an 'error' without a listener from being thrown (ws emits one when a socket
  // that is still connecting gets closed).
  ws.on('error', (error) => safely(() => handlers.onError(error)));
  return {
    // A send that fails reaches the callback instead of throwing; the socket then closes.
    send: (data) => safely(() => ws.readyState === WebSocket.OPEN && ws.send(data, () => undefined)),
    close: (code, reason) => safely(() => ws.close(code, reason)),
  };
};

/** The stream transport for Node 20: pass it as `streamTransport`. */
export const wsTransport: StreamTransport = defineStreamTransport(openWs);
