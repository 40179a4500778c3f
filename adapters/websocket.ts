import type { StreamSocket, StreamSocketHandlers, SocketOpener } from '../src/stream/socket-types';
import { defineStreamTransport, type StreamTransport } from '../src/stream/stream-transport';

/** Runs a handler without letting it throw into the socket's event dispatch. */
function safely(handler: () => void): void {
  try {
    handler();
  } catch {}
}

/**
 * The socket opener on the platform's global `WebSocket` (browsers, React Native,
 * Node 22+), looked up when a socket opens, never at import time. Browsers cannot set
 * headers on a WebSocket, so the SDK key travels as the `flagplane.key.<sdkKey>`
 * subprotocol (protocol.md §6.1); the server never echoes it.
 */
export const openWebSocket: SocketOpener = (url, { protocols }, handlers: StreamSocketHandlers): StreamSocket => {
  const ws = new WebSocket(url, protocols);
  ws.onopen = () => safely(handlers.onOpen);
  // Protocol 1 frames are text; a binary one becomes '', which the core rejects as not JSON.
  ws.onmessage = (event) => safely(() => handlers.onMessage(typeof event.data == 'string' ? event.data : ''));
  ws.onclose = (event) => safely(() => handlers.onClose(event.code, event.reason));
  ws.onerror = (event) => safely(() => handlers.onError(event));
  return {
    send: (data) => safely(() => ws.readyState === 1 && ws.send(data)),
    close: (code, reason) => safely(() => ws.close(code, reason)),
  };
};

/** The stream transport on the global `WebSocket`: pass it as `streamTransport`. */
export const webSocketTransport: StreamTransport = defineStreamTransport(openWebSocket);
