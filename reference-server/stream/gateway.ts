import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerOptions, WebSocket, WebSocketServer } from 'ws';
import { errorBody, writeRawError, type ErrorBody } from '../http/responses';
import { splitTarget } from '../http/router';
import type { RateLimiter } from '../http/rate-limit';
import type { ReferenceServerStores } from '../stores/contracts';
import { createStreamAdmission, type StreamLimits } from './admission';
import { handshakeRefusal, keyFromHandshake, selectProtocol } from './handshake';
import { startHeartbeat } from './heartbeat';
import { createFanOut, type FanOut, type FanOutScheduler } from './fan-out';
import type { ResyncReason } from './messages';
import { CLOSE_CODES, encodeMessage, STREAM_PATH } from './messages';
import { closeSession, createSession, runSession, sendEncoded, type SessionContext, type StreamSession } from './session';
import { createSubscriberIndex } from './subscribers';

export interface StreamOptions {
  /** What the streams read: keys to authenticate, each environment's current version, and where refusals are counted. */
  stores: Pick<ReferenceServerStores, 'environments' | 'keys' | 'evictions'>;
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
  /** Where the notification fan-out reads the time and yields between slices. @default setImmediate and performance.now() */
  fanOutScheduler?: FanOutScheduler;
}

export interface StreamGateway {
  /** The `upgrade` listener of the HTTP server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Sends `snapshot.updated` with `version` (the current one by default) to every subscriber of
   * the environment, in slices that yield to the event loop, after the notifications queued
   * before it. Resolves with how many streams it was sent to, once it was sent to all.
   */
  notifyUpdated(environmentId: string, version?: number): Promise<number>;
  /** Sends `snapshot.resync` to every subscriber of the environment, as notifyUpdated does. */
  notifyResync(environmentId: string, reason: ResyncReason): Promise<number>;
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

/** The heartbeat of every stream: one `ping` frame per round, serialised once, sent in slices of its own queue. */
function startPings(sessions: ReadonlySet<StreamSession>, intervals: { heartbeatMs: number; transportPingMs: number }, pingFanOut: FanOut): () => void {
  let ping: { ts: number; frame: Buffer } = { ts: NaN, frame: Buffer.alloc(0) };
  return startHeartbeat(sessions, {
    ...intervals,
    sendPing: (session, ts) => {
      if (ping.ts !== ts) ping = { ts, frame: encodeMessage({ type: 'ping', ts }) };
      return sendEncoded(session, ping.frame);
    },
    visitAll: (targets, visit) => pingFanOut.send(targets, visit),
  });
}

/** Why an upgrade is refused before the limits are asked: the instance is closing, or it is not the stream's path. */
function routeRefusal(closing: boolean, req: IncomingMessage): { status: number; body: ErrorBody; headers?: Record<string, string> } | undefined {
  // An upgrade on a connection that was open before close(): the listener is already closed.
  if (closing) return { status: 503, body: errorBody('unavailable', 'this instance is shutting down: connect again'), headers: { 'Retry-After': '1' } };
  const { path } = splitTarget(req.url ?? '/');
  return path === STREAM_PATH ? undefined : { status: 404, body: errorBody('not_found', `no WebSocket route ${path}`) };
}

/** Closes every stream with 1001 and the WebSocket server; resolves with how many streams it closed, once each has. */
async function closeAll(sessions: ReadonlySet<StreamSession>, wss: WebSocketServer): Promise<number> {
  const closed = [...sessions].map(
    (session) => new Promise<void>((resolve) => {
      session.ws.once('close', () => resolve());
      closeSession(session, CLOSE_CODES.goingAway, 'going away');
    }),
  );
  await Promise.all(closed);
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  return closed.length;
}

export function createStreamGateway(options: StreamOptions): StreamGateway {
  const { stores, heartbeatMs, transportPingMs, connectedDelayMs } = options;
  const wss = createWebSocketServer(options.ws);
  const sessions = new Set<StreamSession>();
  const subscribers = createSubscriberIndex<StreamSession>();
  const fanOut = createFanOut(options.fanOutScheduler);
  // Pings need no order with the notifications: a round of them must not hold a publish back.
  const pingFanOut = createFanOut(options.fanOutScheduler);
  let closing = false;
  const admission = createStreamAdmission(options.limits ?? { streamsPerAddress: 0, streamsPerKey: 0, streamsTotal: Infinity }, () => sessions.size, options.addressRate);
  const clientAddress = options.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown');
  const currentVersion = (environmentId: string) => stores.environments.get(environmentId)?.kv.current ?? 0;
  const onSubscribed = (session: StreamSession) => {
    if (session.environmentId !== undefined) subscribers.add(session.environmentId, session);
  };
  const context: SessionContext = { keys: stores.keys, heartbeatMs, connectedDelayMs, currentVersion, onSubscribed };

  function onConnection(ws: WebSocket, req: IncomingMessage, address: string): void {
    const session = createSession(ws, keyFromHandshake(req));
    sessions.add(session);
    admission.count(session.offeredKey, address, 1);
    ws.on('close', () => {
      clearTimeout(session.authTimer);
      sessions.delete(session);
      if (session.subscribed && session.environmentId !== undefined) subscribers.remove(session.environmentId, session);
      admission.count(session.offeredKey, address, -1);
    });
    runSession(session, context);
  }

  const stopHeartbeat = startPings(sessions, { heartbeatMs, transportPingMs }, pingFanOut);

  const isOpen = (session: StreamSession) => session.ws.readyState === session.ws.OPEN;
  const subscribersOf = (environmentId: string) => subscribers.of(environmentId).filter(isOpen);

  return {
    connections: sessions,
    subscribersOf,
    handleUpgrade(req, socket, head) {
      const refused = routeRefusal(closing, req);
      if (refused) {
        writeRawError(socket, refused.status, refused.body, refused.headers);
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
      const frame = encodeMessage({ type: 'snapshot.updated', environmentId, version });
      return fanOut.send(subscribers.of(environmentId), (session) => {
        // A stream that (re)subscribed since this publish heard of it in its subscribe answer.
        if (session.announced >= version || !sendEncoded(session, frame)) return false;
        session.announced = version;
        return true;
      });
    },
    notifyResync(environmentId, reason) {
      const frame = encodeMessage({ type: 'snapshot.resync', environmentId, version: currentVersion(environmentId), reason });
      return fanOut.send(subscribers.of(environmentId), (session) => sendEncoded(session, frame));
    },
    closeKey(key, code, reason) {
      const matching = [...sessions].filter((s) => s.offeredKey === key);
      for (const session of matching) closeSession(session, code, reason);
      return matching.length;
    },
    async close() {
      closing = true;
      stopHeartbeat();
      fanOut.stop();
      pingFanOut.stop();
      return closeAll(sessions, wss);
    },
  };
}
