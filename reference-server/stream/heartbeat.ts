import type { WebSocket } from 'ws';

/** What the heartbeat needs of a connection. */
export interface HeartbeatTarget {
  readonly ws: WebSocket;
  readonly phase: 'authenticating' | 'open';
  /** Cleared before each transport ping, set again by the pong. */
  alive: boolean;
}

/** Visits each of `targets` with `visit`, all at once or in slices (the stream fan-out). */
export type HeartbeatVisitor = <T>(targets: readonly T[], visit: (target: T) => boolean) => unknown;

export interface HeartbeatOptions<T extends HeartbeatTarget> {
  heartbeatMs: number;
  transportPingMs: number;
  /** Sends the application `ping` frame; every connection of one round gets the same `ts`. */
  sendPing(target: T, ts: number): boolean;
  /** How a round visits the connections. @default every one at once */
  visitAll?: HeartbeatVisitor;
}

const visitAtOnce: HeartbeatVisitor = (targets, visit) => targets.forEach(visit);

/** The ws README heartbeat: a socket that did not answer the previous ping frame is dead. */
function transportPing(target: HeartbeatTarget): boolean {
  if (target.ws.readyState !== target.ws.OPEN) return false;
  if (!target.alive) {
    target.ws.terminate();
    return false;
  }
  target.alive = false;
  target.ws.ping();
  return true;
}

/**
 * protocol.md §6.3: an application `ping` every `heartbeatMs` to connections past
 * `connected`, and a WebSocket ping frame every `transportPingMs`. Returns the stop function.
 */
export function startHeartbeat<T extends HeartbeatTarget>(targets: Iterable<T>, options: HeartbeatOptions<T>): () => void {
  const visitAll = options.visitAll ?? visitAtOnce;
  const appPing = setInterval(() => {
    const ts = Date.now();
    visitAll(
      [...targets].filter((target) => target.phase === 'open'),
      (target) => options.sendPing(target, ts),
    );
  }, options.heartbeatMs);
  const transport = setInterval(() => visitAll([...targets], transportPing), options.transportPingMs);
  return () => {
    clearInterval(appPing);
    clearInterval(transport);
  };
}
