import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerOptions, WebSocket, WebSocketServer } from 'ws';
import { errorBody, writeRawError } from '../http/responses';
import { splitTarget } from '../http/router';
import type { RateLimiter } from '../http/rate-limit';
import type { ReferenceServerStores } from '../stores/contracts';
import { createStreamAdmission, type StreamLimits } from './admission';
import { handshakeRefusal, keyFromHandshake, selectProtocol } from './handshake';
import { startHeartbeat } from './heartbeat';
import type { ResyncReason } from './messages';
import { CLOSE_CODES, STREAM_PATH } from './messages';
import { closeSession, createSession, runSession, send, type SessionContext, type StreamSession } from './session';

export interface StreamOptions {
  stores: ReferenceServerStores;
  heartbeatMs: number;
  transportPingMs: number;
  connectedDelayMs: number;
  /** The `ws` package, loaded by the caller (an optional peer dependency: see startReferenceServer). */
  ws: { WebSocketServer: typeof WebSocketServer };
  /** Open streams allowed per client address, per offered key and in all; past them a handshake is refused (and counted). */
  limits?: StreamLimits;
  /** The request rate per client address, which a handshake spends. @default no limit */
  addressRate?: RateLimiter;
  /** The client's address (http/client-address.ts). @default the socket's */
  clientAddress?: (req: IncomingMessage) => string;
}

export interface StreamGateway {
  /** The `upgrade` listener of the HTTP server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends `snapshot.updated` with `version` (the current one by default) to every subscriber of the environment. */
  notifyUpdated(environmentId: string, version?: number): number;
  /** Sends `snapshot.resync` to every subscriber of the environment. */
  notifyResync(environmentId: string, reason: ResyncReason): number;
  /** Closes every stream opened with `key`. */
  closeKey(key: string, code: number, reason: string): number;
  readonly connections: ReadonlySet<StreamSession>;
  /** The open streams subscribed to the environment. */
  subscribersOf(environmentId: string): StreamSession[];
  /**
   * Refuses upgrades from now on (503), closes every stream with 1001 (going away), clears every
   * timer; resolves with the number of streams it closed once each closing handshake is done.
   */
  close(): Promise<number>;
}

/** How long a closing handshake may take before ws destroys the socket. */
const CLOSE_TIMEOUT_MS = 2000;

function createWebSocketServer(ws: StreamOptions['ws']): WebSocketServer {
  // `closeTimeout` exists in ws 8.23 but not in @types/ws.
  const serverOptions: ServerOptions & { closeTimeout: number } = {
    noServer: true,
    clientTracking: false,
    maxPayload: 64 * 1024,
    closeTimeout: CLOSE_TIMEOUT_MS,
    handleProtocols: selectProtocol,
    // A text frame that is not UTF-8 is not JSON: the session closes it 4400 (protocol.md §6.2), not ws with 1007.
    skipUTF8Validation: true,
  };
  const wss = new ws.WebSocketServer(serverOptions);
  // Without a listener, ws refuses bad handshakes itself with a text/html body.
  wss.on('wsClientError', (error: Error, socket: Duplex, req: IncomingMessage) => {
    const { status, body, headers } = handshakeRefusal(req, error.message);
    writeRawError(socket, status, body, headers);
  });
  return wss;
}

export function createStreamGateway(options: StreamOptions): StreamGateway {
  const { stores, heartbeatMs, transportPingMs, connectedDelayMs } = options;
  const wss = createWebSocketServer(options.ws);
  const sessions = new Set<StreamSession>();
  let closing = false;
  const admission = createStreamAdmission(options.limits ?? { streamsPerAddress: 0, streamsPerKey: 0, streamsTotal: Infinity }, () => sessions.size, options.addressRate);
  const clientAddress = options.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown');
  const currentVersion = (environmentId: string) => stores.environments.get(environmentId)?.kv.current ?? 0;
  const context: SessionContext = { keys: stores.keys, heartbeatMs, connectedDelayMs, currentVersion };

  function onConnection(ws: WebSocket, req: IncomingMessage, address: string): void {
    const session = createSession(ws, keyFromHandshake(req));
    sessions.add(session);
    admission.count(session.offeredKey, address, 1);
    ws.on('close', () => {
      clearTimeout(session.authTimer);
      sessions.delete(session);
      admission.count(session.offeredKey, address, -1);
    });
    runSession(session, context);
  }

  const stopHeartbeat = startHeartbeat(sessions, {
    heartbeatMs,
    transportPingMs,
    sendPing: (session) => send(session, { type: 'ping', ts: Date.now() }),
  });

  function subscribersOf(environmentId: string): StreamSession[] {
    return [...sessions].filter((s) => s.phase === 'open' && s.subscribed && s.environmentId === environmentId);
  }

  return {
    connections: sessions,
    subscribersOf,
    handleUpgrade(req, socket, head) {
      if (closing) {
        // An upgrade on a connection that was open before close(): the listener is already closed.
        writeRawError(socket, 503, errorBody('unavailable', 'this instance is shutting down: connect again'), { 'Retry-After': '1' });
        return;
      }
      const { path } = splitTarget(req.url ?? '/');
      if (path !== STREAM_PATH) {
        writeRawError(socket, 404, errorBody('not_found', `no WebSocket route ${path}`));
        return;
      }
      const address = clientAddress(req);
      const refusal = admission.refusal(keyFromHandshake(req), address);
      if (refusal) {
        stores.evictions[refusal.counter] += 1;
        writeRawError(socket, refusal.status, errorBody(refusal.code, refusal.message), { 'Retry-After': refusal.retryAfter });
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req, address));
    },
    notifyUpdated(environmentId, version = currentVersion(environmentId)) {
      return subscribersOf(environmentId).filter((s) => send(s, { type: 'snapshot.updated', environmentId, version })).length;
    },
    notifyResync(environmentId, reason) {
      const version = currentVersion(environmentId);
      return subscribersOf(environmentId).filter((s) => send(s, { type: 'snapshot.resync', environmentId, version, reason })).length;
    },
    closeKey(key, code, reason) {
      const matching = [...sessions].filter((s) => s.offeredKey === key);
      for (const session of matching) closeSession(session, code, reason);
      return matching.length;
    },
    async close() {
      closing = true;
      stopHeartbeat();
      const closed = [...sessions].map(
        (session) => new Promise<void>((resolve) => {
          session.ws.once('close', () => resolve());
          closeSession(session, CLOSE_CODES.goingAway, 'going away');
        }),
      );
      await Promise.all(closed);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      return closed.length;
    },
  };
}
