import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from './responses';
import { errorBody, writeRawError } from './responses';
import { DEFAULT_LIMITS, type ServerLimits } from './limits';

/** How long close() lets requests in flight finish before it closes their connections. */
export const CLOSE_GRACE_MS = 2000;

/** What close() did with the requests it found in flight or that arrived on open connections meanwhile. */
export interface RequestsDrained {
  /** Answered in full. */
  finished: number;
  /** Their connection closed before the answer went out: the client gave up, or the grace ran out. */
  cut: number;
}

export interface HttpServer {
  readonly server: Server;
  /**
   * Stops listening at once, answers requests in flight with `Connection: close`, closes idle
   * connections at once and the rest after the grace; resolves with what became of the requests.
   */
  close(): Promise<RequestsDrained>;
}

function clientErrorAnswer(code: string | undefined): [number, ErrorBody] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, errorBody('invalid_request', 'the request headers are too large')];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, errorBody('invalid_request', 'the request took too long to arrive')];
  return [400, errorBody('invalid_request', 'malformed HTTP request')];
}

function whenAllClosed(responses: readonly ServerResponse[], then: () => void): void {
  let open = responses.length;
  if (open === 0) then();
  for (const res of responses) {
    res.once('close', () => {
      open -= 1;
      if (open === 0) then();
    });
  }
}

/** node:http closes a CONNECT without a byte unless someone listens; this server is no proxy. */
function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => undefined);
  writeRawError(socket, 405, errorBody('method_not_allowed', 'CONNECT is not supported: this server is not a proxy'));
}

/** Answers a request the parser rejects with the error shape, after the complete requests pipelined before it. */
function createClientErrorListener(inFlight: ReadonlySet<ServerResponse>) {
  // The parser reports the same error again for every later chunk; only the first is answered.
  const refused = new WeakSet<Duplex>();
  return (error: Error & { code?: string }, socket: Duplex): void => {
    if (refused.has(socket)) return;
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    refused.add(socket);
    const earlier = [...inFlight].filter((res) => res.req.socket === socket && res.req.complete);
    whenAllClosed(earlier, () => writeRawError(socket, ...clientErrorAnswer(error.code)));
  };
}

/**
 * A node:http server whose close() lets requests in flight finish (for up to CLOSE_GRACE_MS)
 * and releases the port without waiting for keep-alive, stalled or silent connections to time out.
 */
export function createHttpServer(
  listener: RequestListener,
  timeouts: Pick<ServerLimits, 'headersTimeoutMs' | 'requestTimeoutMs'> = DEFAULT_LIMITS,
): HttpServer {
  const inFlight = new Set<ServerResponse>();
  /** The requests in flight at close() and those sent on connections still open after it. */
  const draining: ServerResponse[] = [];
  let closing = false;
  const server = createServer({
    // Host is checked by the router, which answers with the JSON error shape; node:http's
    // own check answers a bare 400.
    requireHostHeader: false,
    // Node's defaults (60 s and 300 s) let a slow client hold a connection for minutes.
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    // How often node:http looks for expired requests (30 s by default): a fraction of the shorter timeout.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headersTimeoutMs / 4))),
  });
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
    if (closing) {
      res.setHeader('Connection', 'close');
      draining.push(res);
    }
  });
  server.on('request', listener);
  server.on('connect', refuseConnect);
  server.on('clientError', createClientErrorListener(inFlight));
  return {
    server,
    async close() {
      closing = true;
      for (const res of inFlight) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        draining.push(res);
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      await closed.finally(() => clearTimeout(grace));
      const finished = draining.filter((res) => res.writableFinished).length;
      return { finished, cut: draining.length - finished };
    },
  };
}
