import type { WebSocket } from 'ws';
import type { StreamSocket, StreamSocketHandlers, SocketOpener } from '../src/stream/socket-types';

/** Runs a handler without letting it throw into the emitter: ws would crash the process. */
function safely(handler: () => void): void {
  try {
    handler();
  } catch {}
}

/** What {@link wsOpener} imports `ws` with: `import('ws')`, or a test's stand-in. */
export type ImportWs = () => Promise<{ WebSocket: typeof WebSocket }>;

/** The error of a missing `ws`: an optional peer dependency of flagplane, which browsers never need. */
export function wsMissing(cause: unknown): Error {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  const notFound = (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String(message).includes("'ws'");
  return notFound ? new Error('flagplane/adapters/ws needs the ws package (Node 20 has no global WebSocket): npm install ws', { cause }) : (cause as Error);
}

/**
 * A socket opener on the `ws` package, which is imported when the first socket opens (an
 * optional peer: a missing one fails the stream with `npm install ws`, not the app's import).
 * The socket is created once it is loaded; a `close()` before that creates none.
 */
export function wsOpener(importWs: ImportWs): SocketOpener {
  let loading: Promise<{ WebSocket: typeof WebSocket }> | undefined;
  let missing: Error | undefined;
  return (url, { protocols, sdkKey }, handlers: StreamSocketHandlers): StreamSocket => {
    // Known missing: the stream stops and reports it, rather than retrying forever.
    if (missing) throw missing;
    let ws: WebSocket | undefined;
    let closed = false;
    (loading ??= importWs()).then(
      ({ WebSocket }) => {
        if (closed) return;
        ws = new WebSocket(
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
      },
      (cause: unknown) => {
        loading = undefined;
        missing = wsMissing(cause);
        if (!closed) safely(() => (handlers.onError(missing), handlers.onClose(1006, missing!.message)));
      },
    );
    return {
      // A send that fails reaches the callback instead of throwing; the socket then closes.
      send: (data) => safely(() => ws?.readyState === 1 && ws.send(data, () => undefined)),
      close: (code, reason) => {
        closed = true;
        safely(() => ws?.close(code, reason));
      },
    };
  };
}
