/**
 * The small socket contract the stream core needs, so that any platform can plug in its
 * own WebSocket (see `adapters/websocket.ts` and `adapters/ws.ts`).
 */

/** One open (or opening) socket, as the core drives it. */
export interface StreamSocket {
  /** Sends one text frame; a no-op unless the socket is open. Never throws. */
  send(data: string): void;
  /** Closes the socket (also while it is still opening); a no-op once closed. Never throws. */
  close(code?: number, reason?: string): void;
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
