import type { StreamEventOpener, StreamSocket, StreamSocketHandlers, SocketOpener } from '../src/stream/socket-types';
import type { SocketEvent } from '../src/stream/stream-machine';
import { openStream } from '../src/stream/stream-connection';
import type { StreamTransport } from '../src/stream/stream-transport';

/** Runs a handler without letting it throw into the socket's event dispatch. */
function safely(handler: () => void): void {
  try {
    handler();
  } catch {}
}

/**
 * The platform's global `WebSocket` (browsers, React Native, Node 22+), looked up when a socket
 * opens, never at import time. Browsers cannot set headers on a WebSocket, so the SDK key
 * travels as the `flagplane.key.<sdkKey>` subprotocol (protocol.md §6.1); the server never echoes it.
 */
const openNative: StreamEventOpener = (url, protocols, on) => {
  // Otherwise all a Node 20 user learns is "WebSocket is not defined", deep in a `cause`. Every
  // browser has one: the browser build leaves the check out (it pays for closing below).
  if (typeof __FLAGPLANE_BROWSER__ == 'undefined' && typeof WebSocket == 'undefined') throw new ReferenceError('no global WebSocket (Node 20): use wsTransport from flagplane/adapters/ws');
  const ws = new WebSocket(url, protocols);
  // A WebSocket's open, message and close events are socket events as they are (`type`, then
  // `data`, or `code` and `reason`; binary data is not a string, which the core rejects). Its
  // error event carries nothing, so it travels as the cause.
  ws.onopen = ws.onmessage = ws.onclose = (event: Event) => on(event as SocketEvent);
  ws.onerror = (cause) => on({ type: 'error', cause });
  return ws;
};

/**
 * The same WebSocket as a {@link SocketOpener}, for composing a custom transport: a handler that
 * throws does not escape into the socket, and `send` before the socket opened is a no-op.
 */
export const openWebSocket: SocketOpener = (url, { protocols }, handlers: StreamSocketHandlers): StreamSocket => {
  const ws = openNative(url, protocols, (event) =>
    safely(() => {
      if (event.type === 'open') handlers.onOpen();
      // Protocol 1 frames are text; a binary one becomes '', which the core rejects as not JSON.
      else if (event.type === 'message') handlers.onMessage(typeof event.data == 'string' ? event.data : '');
      else if (event.type === 'close') handlers.onClose(event.code, event.reason);
      else handlers.onError(event.cause);
    }),
  );
  return {
    send: (data) => safely(() => ws.send(data)),
    close: (code, reason) => safely(() => ws.close(code, reason)),
    // A stream stopped while it connects then waits for it to open before closing it.
    get readyState() {
      return ws.readyState;
    },
  };
};

/**
 * The stream transport on the global `WebSocket`: pass it as `streamTransport`. It drives the
 * socket directly, without the `SocketOpener` layer (the core's own handlers never throw).
 */
export const webSocketTransport: StreamTransport = { connect: (options) => openStream(options, openNative) };
