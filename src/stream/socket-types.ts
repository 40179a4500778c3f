import type { SocketEvent } from './stream-machine';

/**
 * The small socket contracts of the stream core. `SocketOpener` is the public one, so that any
 * platform can plug in its own WebSocket (see `adapters/ws.ts`); the core adapts it to its own
 * `StreamEventOpener`, which `adapters/websocket.ts` implements directly on the WHATWG WebSocket.
 */

/**
 * One open (or opening) socket, as the core drives it: the core sends only once the socket has
 * delivered a frame (so it is open), and closes it with 1000, which a WebSocket never rejects.
 */
export interface StreamSocket {
  /** Sends one text frame. A `SocketOpener`'s is a no-op unless the socket is open, and never throws. */
  send(data: string): void;
  /** Closes the socket (also while it is still opening); a no-op once closed. A `SocketOpener`'s never throws. */
  close(code?: number, reason?: string): void;
  /**
   * A WHATWG WebSocket's `readyState`, where the socket has one: a stream stopped while it is
   * `0` (connecting) closes it once it opens, as browsers log a warning for closing it sooner.
   */
  readonly readyState?: number;
}

/**
 * What a socket reports. Called asynchronously, as WebSocket events are; the core stops
 * listening once it has closed a socket, so adapters need not guard against late events.
 */
export interface StreamSocketHandlers {
  onOpen(): void;
  /** One text frame. Adapters pass binary frames as `''`, which the core rejects as not JSON. */
  onMessage(data: string): void;
  onClose(code: number, reason: string): void;
  onError(cause: unknown): void;
}

/**
 * Opens a socket to `url` offering `protocols`; `sdkKey` lets non-browser adapters send
 * `Authorization: Bearer` instead of the `flagplane.key.<sdkKey>` subprotocol. May throw
 * synchronously for a socket that can never open (bad URL, bad subprotocol, no WebSocket on
 * the platform); the stream then stops and reports the error.
 */
export type SocketOpener = (
  url: string,
  options: { protocols: string[]; sdkKey: string },
  handlers: StreamSocketHandlers,
) => StreamSocket;

/**
 * The core's own opener: opens a socket to `url` offering `protocols` and reports what happens
 * to it as socket events, asynchronously. A WHATWG WebSocket is one returned as it is.
 */
export type StreamEventOpener = (url: string, protocols: string[], on: (event: SocketEvent) => void) => StreamSocket;
