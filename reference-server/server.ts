import type { IncomingHttpHeaders, Server } from 'node:http';
import { requireAdminToken } from './http/auth';
import type { ServerConfig } from './config';
import { demoConfig, parseServerConfig, seedFromConfig } from './config';
import { createHttpServer } from './http/http-server';
import { resolveLimits, type ServerLimits } from './http/limits';
import { createRateLimiter } from './http/rate-limit';
import { createRequestListener } from './http/router';
import { ADMIN_PREFIX, createAdminRoutes } from './routes/admin';
import { createConsoleRoutes } from './routes/console';
import { createSdkRoutes } from './routes/sdk';
import { openStores } from './stores/open-stores';
import { createQueueRoutes } from './routes/queue';
import { applyRemoteChange, createServerActions } from './routes/server-actions';
import { createChangeFeed } from './routes/admin-changes';
import { announcingActions, countingEventStores, remoteAdminChange } from './routes/admin-change-sources';
import { generateAdminToken } from './http/sdk-keys';
import type { SnapshotDraft } from './validation/snapshot-structure';
import type { ReferenceServerStores } from './stores/contracts';
import type { Evictions, KeyKind, StoredTraits } from './stores/records';
import { createEventLog } from './stores/event-log';
import { createIdentifyLog } from './stores/identify-log';
import { createStreamGateway } from './stream/gateway';
import { loadOptionalPackage } from './stores/optional-package';

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
   * Closes streams with 1001, ends every admin change feed, clears every timer, gives in-flight requests up to 2 s to finish,
   * releases the port, then closes the Redis connections and the Postgres pool.
   */
  close(): Promise<void>;
}

function requireDuration(name: string, value: number, allowZero: boolean): number {
  // Node runs a timer over 2^31-1 ms after 1 ms: a huge heartbeat would be a flood.
  if (!Number.isFinite(value) || value < 0 || value > 2 ** 31 - 1 || (value === 0 && !allowZero)) {
    throw new RangeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number of milliseconds up to 2147483647`);
  }
  return value;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** This instance's stores, opened on their engines, and what it holds in memory, its evictions counted. */
async function openServerStores(options: ReferenceServerOptions, config: ServerConfig, limits: ServerLimits, onError: (error: unknown) => void) {
  const evictions: Evictions = { events: 0, identifyRows: 0, snapshotVersions: 0, traitUsers: 0, streamsRefused: 0, requestsLimited: 0 };
  const count = (what: keyof Evictions) => () => void (evictions[what] += 1);
  const memory = {
    identifyQueue: createIdentifyLog(limits.identifyRows, count('identifyRows')),
    analytics: createEventLog(limits.eventsPerKind, count('events')),
  };
  const opened = await openStores(
    {
      redis: options.redis,
      redisPrefix: options.redisPrefix,
      postgres: options.postgres,
      onError,
      bounds: { snapshotVersions: limits.snapshotVersions, traitUsers: limits.traitUsers, onEvict: (what) => count(what)() },
    },
    seedFromConfig(config),
    memory,
  );
  const stores: ReferenceServerStores = { ...opened.working, ...memory, diagnostics: createEventLog(limits.eventsPerKind, count('events')), evictions };
  return { opened, stores };
}

/** Starts a reference server; resolves once it listens. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const config = options.config ? parseServerConfig(options.config) : demoConfig();
  const limits = resolveLimits({ ...config.limits, ...options.limits });
  const host = options.host ?? '127.0.0.1';
  const adminToken = config.adminToken ?? generateAdminToken();
  const durations = {
    heartbeatMs: requireDuration('heartbeatMs', options.heartbeatMs ?? 15000, false),
    transportPingMs: requireDuration('transportPingMs', options.transportPingMs ?? 30000, false),
    connectedDelayMs: requireDuration('connectedDelayMs', options.connectedDelayMs ?? 0, true),
  };
  const onInternalError = options.onInternalError ?? (() => undefined);
  // An optional peer dependency (an app that only runs the SDK in browsers never installs it):
  // a missing one is a MissingPackageError, which the CLI prints as it is.
  const ws = await loadOptionalPackage<typeof import('ws')>('the reference server', 'ws');
  const { opened, stores } = await openServerStores(options, config, limits, onInternalError);
  const gateway = createStreamGateway({ stores, ...durations, limits, ws });
  const streams = (environmentId: string) => gateway.subscribersOf(environmentId).length;
  const feed = createChangeFeed({ maxFeeds: limits.changeFeeds, heartbeatMs: requireDuration('changeFeedHeartbeatMs', options.changeFeedHeartbeatMs ?? 20000, false), streams, environmentIds: () => stores.environments.list().map(({ id }) => id) });
  const actions = announcingActions(createServerActions({ working: opened.working, control: opened.control, gateway }), opened.working, feed.announce);
  opened.listen((change) => {
    applyRemoteChange(opened.working, gateway, change);
    const told = remoteAdminChange(change, opened.working);
    if (told) feed.announce(told);
  });
  const counted = countingEventStores(stores, opened, feed.received);
  const routes = [
    ...createSdkRoutes(counted.stores, counted.events, createRateLimiter(limits.requestsPerSecondPerKey)),
    feed.route,
    ...createAdminRoutes({ stores, actions, identifyQueue: opened.identifyQueue, analytics: opened.analytics, streams }),
    ...createQueueRoutes(opened.identifyQueue, (id) => stores.environments.get(id) !== undefined),
    ...(options.consoleDir === undefined ? [] : createConsoleRoutes(options.consoleDir)),
  ];
  const adminOnly = (path: string, headers: IncomingHttpHeaders) => {
    if (path.startsWith(ADMIN_PREFIX)) requireAdminToken(headers, adminToken);
  };

  const http = createHttpServer(createRequestListener(routes, onInternalError, adminOnly), limits);
  http.server.on('upgrade', gateway.handleUpgrade);

  let port: number;
  try {
    port = await listen(http.server, options.port ?? 0, host);
  } catch (error) {
    feed.close();
    await gateway.close();
    await opened.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    feed.close();
    const released = http.close();
    await gateway.close();
    await released;
    await opened.close();
  };
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    baseUrl: `http://${authority}`,
    wsUrl: `ws://${authority}`,
    port,
    adminToken,
    stores,
    engines: { control: opened.control.engine === 'redis' ? 'redis' : 'memory', events: opened.analytics.engine === 'postgres' ? 'postgres' : 'memory' },
    publish: async (environmentId, snapshot) => ({ version: (await actions.publish(environmentId, snapshot)).version }),
    resync: async (environmentId) => ({ notified: (await actions.resync(environmentId)).notified }),
    createKey: async (environmentId, kind) => (await actions.createKey(environmentId, kind)).key,
    revokeKey: (key) => actions.revokeKey(key),
    setTraits: async (environmentId, userId, traits) => {
      await actions.setTraits(environmentId, userId, traits);
    },
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}
