import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { RawData, ServerOptions, WebSocket } from 'ws';
import { checkSdkKey } from '../http/auth';
import { errorBody, writeRawError } from '../http/responses';
import { splitTarget } from '../http/router';
import type { ReferenceServerStores } from '../stores/contracts';
import { handshakeRefusal, keyFromHandshake, selectProtocol } from './handshake';
import { startHeartbeat } from './heartbeat';
import type { ServerLimits } from '../limits';
import type { ResyncReason, ServerMessage } from './messages';
import { answerSubscribe, CLOSE_CODES, closeReason, parseClientFrame, STREAM_PATH, STREAM_PROTOCOL } from './messages';

export interface StreamOptions {
  stores: ReferenceServerStores;
  heartbeatMs: number;
  transportPingMs: number;
  connectedDelayMs: number;
  /** Open streams allowed per offered key and in all; past them a handshake is refused (and counted). */
  limits?: Pick<ServerLimits, 'streamsPerKey' | 'streamsTotal'>;
}

/** Seconds a client refused for a stream limit is asked to wait. */
const STREAM_RETRY_AFTER_S = 5;

/** One open stream, as tests may inspect it. */
export interface StreamSession {
  readonly ws: WebSocket;
  /** The key the client offered, known before authentication finishes. */
  readonly offeredKey: string | undefined;
  phase: 'authenticating' | 'open';
  environmentId: string | undefined;
  subscribed: boolean;
  /** Cleared before each transport ping, set again by the pong. */
  alive: boolean;
  authTimer: ReturnType<typeof setTimeout> | undefined;
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
  /** Closes every stream with 1001 and clears every timer. */
  close(): Promise<void>;
}

/** How long a closing handshake may take before ws destroys the socket. */
const CLOSE_TIMEOUT_MS = 2000;

// `ignoreBOM` keeps a leading BOM in the text, so such a frame is refused as not JSON.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Sends to an open stream; false when the stream is closing or closed. */
function send(connection: StreamSession, message: ServerMessage): boolean {
  if (connection.ws.readyState !== connection.ws.OPEN) return false;
  connection.ws.send(JSON.stringify(message));
  return true;
}

function decodeText(data: RawData): string | undefined {
  try {
    return UTF8.decode(Array.isArray(data) ? Buffer.concat(data) : data);
  } catch {
    return undefined;
  }
}

function closeConnection(connection: StreamSession, code: number, reason: string): void {
  clearTimeout(connection.authTimer);
  if (connection.ws.readyState === connection.ws.OPEN || connection.ws.readyState === connection.ws.CONNECTING) {
    connection.ws.close(code, closeReason(reason));
  }
}

export function createStreamGateway(options: StreamOptions): StreamGateway {
  const { stores, heartbeatMs, transportPingMs, connectedDelayMs } = options;
  // `closeTimeout` exists in ws 8.23 but not in @types/ws.
  const serverOptions: ServerOptions & { closeTimeout: number } = {
    noServer: true,
    clientTracking: false,
    maxPayload: 64 * 1024,
    closeTimeout: CLOSE_TIMEOUT_MS,
    handleProtocols: selectProtocol,
    // A text frame that is not UTF-8 is not JSON: onMessage closes it 4400 (protocol.md §6.2), not ws with 1007.
    skipUTF8Validation: true,
  };
  const wss = new WebSocketServer(serverOptions);
  // Without a listener, ws refuses bad handshakes itself with a text/html body.
  wss.on('wsClientError', (error: Error, socket: Duplex, req: IncomingMessage) => {
    const { status, body, headers } = handshakeRefusal(req, error.message);
    writeRawError(socket, status, body, headers);
  });
  const connections = new Set<StreamSession>();
  let closing = false;

  /** Open connections per offered key: the per-key stream limit, without a scan. */
  const openPerKey = new Map<string, number>();
  const limits = options.limits ?? { streamsPerKey: Infinity, streamsTotal: Infinity };
  const countKey = (key: string | undefined, change: 1 | -1) => {
    if (key === undefined) return;
    const count = (openPerKey.get(key) ?? 0) + change;
    if (count > 0) openPerKey.set(key, count);
    else openPerKey.delete(key);
  };
  const overLimit = (key: string | undefined) => {
    if (connections.size >= limits.streamsTotal) {
      return { status: 503, code: 'unavailable' as const, message: `the server holds its limit of ${limits.streamsTotal} streams` };
    }
    if (key !== undefined && (openPerKey.get(key) ?? 0) >= limits.streamsPerKey) {
      return { status: 429, code: 'rate_limited' as const, message: `this SDK key holds its limit of ${limits.streamsPerKey} streams` };
    }
    return undefined;
  };

  const currentVersion = (environmentId: string) => stores.environments.get(environmentId)?.kv.current ?? 0;

  function authenticate(connection: StreamSession): void {
    connection.authTimer = undefined;
    const check = checkSdkKey(connection.offeredKey, stores.keys);
    if (!check.ok) {
      closeConnection(connection, CLOSE_CODES.badKey, check.message);
      return;
    }
    const { environmentId } = check.record;
    connection.phase = 'open';
    connection.environmentId = environmentId;
    send(connection, { type: 'connected', protocol: 1, environmentId, version: currentVersion(environmentId), heartbeatMs });
  }

  function onSubscribe(connection: StreamSession, environmentId: string, lastKnownVersion: number | null): void {
    if (environmentId !== connection.environmentId) {
      closeConnection(connection, CLOSE_CODES.protocolError, `subscribe for environment "${environmentId}", but the key belongs to "${connection.environmentId}"`);
      return;
    }
    connection.subscribed = true;
    const version = currentVersion(environmentId);
    const answer = answerSubscribe(lastKnownVersion, version);
    if (answer.type === 'snapshot.updated') send(connection, { type: answer.type, environmentId, version });
    if (answer.type === 'snapshot.resync') send(connection, { type: answer.type, environmentId, version, reason: answer.reason });
  }

  function onMessage(connection: StreamSession, data: RawData, isBinary: boolean): void {
    if (connection.ws.readyState !== connection.ws.OPEN) return;
    if (connection.phase !== 'open') {
      closeConnection(connection, CLOSE_CODES.protocolError, 'a frame arrived before connected was sent');
      return;
    }
    if (isBinary) {
      closeConnection(connection, CLOSE_CODES.protocolError, 'binary frames are not supported');
      return;
    }
    const text = decodeText(data);
    if (text === undefined) {
      closeConnection(connection, CLOSE_CODES.protocolError, 'frame is not UTF-8 text, so not JSON');
      return;
    }
    const parsed = parseClientFrame(text);
    if (!parsed.ok) {
      closeConnection(connection, CLOSE_CODES.protocolError, parsed.reason);
      return;
    }
    const { frame } = parsed;
    if (frame.type === 'subscribe') onSubscribe(connection, frame.environmentId, frame.lastKnownVersion);
    else if (frame.type === 'ping') send(connection, { type: 'pong', ts: frame.ts });
  }

  function onConnection(ws: WebSocket, req: IncomingMessage): void {
    const connection: StreamSession = {
      ws,
      offeredKey: keyFromHandshake(req),
      phase: 'authenticating',
      environmentId: undefined,
      subscribed: false,
      alive: true,
      authTimer: undefined,
    };
    connections.add(connection);
    countKey(connection.offeredKey, 1);
    ws.on('close', () => {
      clearTimeout(connection.authTimer);
      connections.delete(connection);
      countKey(connection.offeredKey, -1);
    });
    // An 'error' is always followed by 'close'; without a listener it would be thrown.
    ws.on('error', () => undefined);
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('message', (data, isBinary) => onMessage(connection, data, isBinary));
    if (ws.protocol !== STREAM_PROTOCOL) {
      closeConnection(connection, CLOSE_CODES.protocolError, `the client must offer the ${STREAM_PROTOCOL} subprotocol`);
      return;
    }
    if (connectedDelayMs > 0) connection.authTimer = setTimeout(() => authenticate(connection), connectedDelayMs);
    else authenticate(connection);
  }

  const stopHeartbeat = startHeartbeat(connections, {
    heartbeatMs,
    transportPingMs,
    sendPing: (connection) => send(connection, { type: 'ping', ts: Date.now() }),
  });

  function subscribersOf(environmentId: string): StreamSession[] {
    return [...connections].filter((c) => c.phase === 'open' && c.subscribed && c.environmentId === environmentId);
  }

  return {
    connections,
    subscribersOf,
    handleUpgrade(req, socket, head) {
      if (closing) {
        socket.destroy();
        return;
      }
      const { path } = splitTarget(req.url ?? '/');
      if (path !== STREAM_PATH) {
        writeRawError(socket, 404, errorBody('not_found', `no WebSocket route ${path}`));
        return;
      }
      const refusal = overLimit(keyFromHandshake(req));
      if (refusal) {
        stores.evictions.streamsRefused += 1;
        writeRawError(socket, refusal.status, errorBody(refusal.code, refusal.message), { 'Retry-After': String(STREAM_RETRY_AFTER_S) });
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, req));
    },
    notifyUpdated(environmentId, version = currentVersion(environmentId)) {
      return subscribersOf(environmentId).filter((c) => send(c, { type: 'snapshot.updated', environmentId, version })).length;
    },
    notifyResync(environmentId, reason) {
      const version = currentVersion(environmentId);
      return subscribersOf(environmentId).filter((c) => send(c, { type: 'snapshot.resync', environmentId, version, reason })).length;
    },
    closeKey(key, code, reason) {
      const matching = [...connections].filter((c) => c.offeredKey === key);
      for (const connection of matching) closeConnection(connection, code, reason);
      return matching.length;
    },
    async close() {
      closing = true;
      stopHeartbeat();
      const closed = [...connections].map(
        (connection) => new Promise<void>((resolve) => {
          connection.ws.once('close', () => resolve());
          closeConnection(connection, CLOSE_CODES.goingAway, 'going away');
        }),
      );
      await Promise.all(closed);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
