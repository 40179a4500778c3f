import type { WebSocket } from 'ws';

/** What the heartbeat needs of a connection. */
export interface HeartbeatTarget {
  readonly ws: WebSocket;
  readonly phase: 'authenticating' | 'open';
  /** Cleared before each transport ping, set again by the pong. */
  alive: boolean;
}

export interface HeartbeatOptions<T extends HeartbeatTarget> {
  heartbeatMs: number;
  transportPingMs: number;
  /** Sends the application `ping` frame. */
  sendPing(target: T): void;
}

/**
 * protocol.md §6.3: an application `ping` every `heartbeatMs` to connections past
 * `connected`, and a WebSocket ping frame every `transportPingMs`. Returns the stop function.
 */
export function startHeartbeat<T extends HeartbeatTarget>(targets: Iterable<T>, options: HeartbeatOptions<T>): () => void {
  const appPing = setInterval(() => {
    for (const target of targets) if (target.phase === 'open') options.sendPing(target);
  }, options.heartbeatMs);

  // The ws README heartbeat: a socket that did not answer the previous ping frame is dead.
  const transportPing = setInterval(() => {
    for (const target of targets) {
      if (target.ws.readyState !== target.ws.OPEN) continue;
      if (!target.alive) {
        target.ws.terminate();
        continue;
      }
      target.alive = false;
      target.ws.ping();
    }
  }, options.transportPingMs);

  return () => {
    clearInterval(appPing);
    clearInterval(transportPing);
  };
}
