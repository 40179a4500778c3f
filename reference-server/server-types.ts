import type { ServerConfig } from './config';
import type { RequestsDrained } from './http/http-server';
import type { ServerLimits } from './http/limits';
import type { SnapshotDraft } from './validation/snapshot-structure';
import type { ReferenceServerStores } from './stores/contracts';
import type { KeyKind, StoredTraits } from './stores/records';

export interface ReferenceServerOptions {
  /** Port to listen on; `0` picks a free one. @default 0 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Environments, keys, snapshots and traits. @default the demo config (reference-server/demo.json) */
  config?: ServerConfig;
  /** Interval of the application `ping` on the stream, announced in `connected`. @default 15000 */
  heartbeatMs?: number;
  /** Interval of WebSocket ping frames; a socket that missed the previous one is terminated. @default 30000 */
  transportPingMs?: number;
  /** Test hook: delays `connected` (and the key check) to simulate slow authentication. @default 0 */
  connectedDelayMs?: number;
  /** Called with whatever a handler threw before the 500 answer. @default ignore */
  onInternalError?: (error: unknown) => void;
  /**
   * A folder holding the console's built script (`console.js`): with it, `GET /` serves the
   * flag console (docs/console.md). The CLI passes dist/console/. @default no console
   */
  consoleDir?: string;
  /** What the server holds and accepts at most; each limit not given keeps its default (http/limits.ts). */
  limits?: Partial<ServerLimits>;
  /**
   * A Redis URL (`redis://host:6379`): environments, snapshots, keys, revocations and traits
   * live there, shared by every instance on it, and changes reach each instance's streams over
   * pub/sub. Needs the `ioredis` package. @default in memory
   */
  redis?: string;
  /** The prefix of this deployment's Redis keys and channel. @default 'flagplane:' */
  redisPrefix?: string;
  /**
   * A Postgres URL (`postgres://user@host:5432/db`): the identify queue and production
   * evaluation events live there. Needs the `pg` package. @default in memory
   */
  postgres?: string;
  /** This instance's name in diagnostics, `GET /admin/v1/instances` and the `Flagplane-Instance` header. @default `${hostname}-${pid}-${6 hex digits}` */
  instanceId?: string;
  /** With `redis`: an instance whose heartbeat (every third of it) stopped is no longer listed after this long. @default 15000 */
  instanceTtlMs?: number;
  /** How long `GET /readyz` waits for each engine's ping. @default 1000 */
  readinessTimeoutMs?: number;
  /**
   * The proxies (addresses and CIDR ranges, IPv4 or IPv6) whose `X-Forwarded-For` is believed:
   * the per-address limits count the rightmost address that is not one of them. Wins over the
   * config's `trustProxy`. @default none: the socket's address counts
   */
  trustProxy?: readonly string[];
  /**
   * Host names served besides loopback ones (`.example.com`: it and every name under it). On a
   * loopback listen other `Host`s get a 403 (DNS rebinding); off loopback, with it, too. Wins
   * over the config's `allowedHosts`. @default loopback names only on loopback, any off it
   */
  allowedHosts?: readonly string[];
  /** The admin API's bearer token, at least 8 characters; wins over the config's. @default the config's, else random per start */
  adminToken?: string;
  /**
   * Serve the demo's admin token and SDK keys even off loopback or on Redis or Postgres,
   * where the server otherwise refuses to start (a DemoCredentialsError). @default false
   */
  allowDemoCredentials?: boolean;
  /** Called once, when close() has closed the engines, with what it did. The CLI prints it. @default ignore */
  onClose?: (report: ShutdownReport) => void;
  /** Interval of the comment line on each admin change feed (GET /admin/v1/changes). @default 20000 */
  changeFeedHeartbeatMs?: number;
}

/** A snapshot to publish: the envelope is checked, the flags are not, and `version` is ignored. */
export type PublishableSnapshot = SnapshotDraft | { schemaVersion: number; flags: object; [member: string]: unknown };

/** A running reference server. */
export interface ReferenceServer {
  /** `http://host:port` */
  readonly baseUrl: string;
  /** `ws://host:port`; the stream is at `${wsUrl}/sdk/v1/stream`. */
  readonly wsUrl: string;
  readonly port: number;
  readonly adminToken: string;
  /** The `instanceId` option, or the generated one. */
  readonly instanceId: string;
  /**
   * This instance's stores, for tests to read what was routed where. With `redis`, environments,
   * keys and traits are this instance's copy of Redis; with `postgres`, `identifyQueue` and
   * `analytics` stay empty (read them through the admin API).
   */
  readonly stores: ReferenceServerStores;
  /** Where the stores live. */
  readonly engines: { control: 'memory' | 'redis'; events: 'memory' | 'postgres' };
  /**
   * Stores the snapshot as version `current + 1` and notifies subscribers. Rejects for an
   * unknown environment or a malformed envelope. In memory the version is stored before it returns.
   */
  publish(environmentId: string, snapshot: PublishableSnapshot): Promise<{ version: number }>;
  /** Sends `snapshot.resync` (reason `operator`) to the environment's subscribers (of every instance). */
  resync(environmentId: string): Promise<{ notified: number }>;
  /** Creates an SDK key and resolves with it. */
  createKey(environmentId: string, kind: KeyKind): Promise<string>;
  /** Revokes a key: 401 from then on, and its streams close with 4403. Rejects for an unknown key. */
  revokeKey(key: string): Promise<void>;
  /** Replaces the trait overlay of a user. */
  setTraits(environmentId: string, userId: string, traits: StoredTraits): Promise<void>;
  /**
   * Stops accepting connections and upgrades at once, closes streams with 1001 (going away),
   * ends every admin change feed,
   * clears every timer, gives in-flight requests up to 2 s to finish, releases the port, then
   * closes the Redis connections and the Postgres pool, and calls `onClose` with what it did.
   * An event batch answered 202 is in its store before the answer: nothing is left to flush.
   * Idempotent (docs/reference-server.md, Rolling restarts).
   */
  close(): Promise<void>;
}

/** What {@link ReferenceServer.close} did (`onClose`). */
export interface ShutdownReport {
  /** Streams closed with 1001. */
  streams: number;
  /** Requests in flight when close() began (or sent on a connection still open): answered in full, or cut. */
  requests: RequestsDrained;
  /** From close() until the engines were closed, in ms. */
  ms: number;
}
