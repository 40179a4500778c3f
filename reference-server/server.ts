import type { IncomingHttpHeaders, Server } from 'node:http';
import { requireAdminToken } from './http/auth';
import type { ServerConfig } from './config';
import { demoConfig, parseServerConfig, seedFromConfig } from './config';
import { createHttpServer, type RequestsDrained } from './http/http-server';
import { resolveLimits, type ServerLimits } from './http/limits';
import { createRateLimiter } from './http/rate-limit';
import { clientAddress, parseTrustedProxies } from './http/client-address';
import { guardUpgrade, hostPolicy, hostRefusal } from './http/host-check';
import { demoCredentialsRefusal, exposureOf } from './demo-credentials';
import { createRequestListener } from './http/router';
import { ADMIN_PREFIX, createAdminRoutes } from './routes/admin';
import { createConsoleRoutes } from './routes/console';
import { createSdkRoutes } from './routes/sdk';
import { openStores, retentionOf } from './stores/open-stores';
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
import { createHealthRoutes, engineProbes, type Lifecycle } from './routes/health';
import { createInstanceRoutes, registerInstance, requireInstanceId, summarize, withInstanceHeader } from './routes/instances';
import { DEFAULT_INSTANCE_TTL_MS, defaultInstanceId } from './stores/instance-registry';
import { DEFAULT_READINESS_TIMEOUT_MS } from './stores/readiness';

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
  const retention = retentionOf(limits, (what, pruned) => void (evictions[what] += pruned));
  const memory = {
    identifyQueue: createIdentifyLog(limits.identifyRows, count('identifyRows'), { ms: retention.identifyRows.maxAgeMs }),
    analytics: createEventLog(limits.eventsPerKind, count('events'), { ms: retention.events.maxAgeMs }),
  };
  const opened = await openStores(
    {
      redis: options.redis,
      redisPrefix: options.redisPrefix,
      postgres: options.postgres,
      onError,
      bounds: { snapshotVersions: limits.snapshotVersions, traitUsers: limits.traitUsers, onEvict: (what) => count(what)() },
      retention,
    },
    seedFromConfig(config),
    memory,
  );
  const stores: ReferenceServerStores = { ...opened.working, ...memory, diagnostics: createEventLog(limits.eventsPerKind, count('events'), { ms: retention.events.maxAgeMs }), evictions };
  return { opened, stores };
}

/** The options that name this instance and bound its probes, checked. */
function instanceOptions(options: ReferenceServerOptions) {
  return {
    id: requireInstanceId(options.instanceId ?? defaultInstanceId()),
    ttlMs: requireDuration('instanceTtlMs', options.instanceTtlMs ?? DEFAULT_INSTANCE_TTL_MS, false),
    readinessTimeoutMs: requireDuration('readinessTimeoutMs', options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS, false),
  };
}

/** Starts a reference server; resolves once it listens. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const config = options.config ? parseServerConfig(options.config) : demoConfig();
  const limits = resolveLimits({ ...config.limits, ...options.limits });
  const host = options.host ?? '127.0.0.1';
  if (options.adminToken !== undefined && options.adminToken.length < 8) throw new RangeError('adminToken must be at least 8 characters');
  const adminToken = options.adminToken ?? config.adminToken ?? generateAdminToken();
  const trusted = parseTrustedProxies(options.trustProxy ?? config.trustProxy);
  const hosts = hostPolicy(host, options.allowedHosts ?? config.allowedHosts);
  const durations = {
    heartbeatMs: requireDuration('heartbeatMs', options.heartbeatMs ?? 15000, false),
    transportPingMs: requireDuration('transportPingMs', options.transportPingMs ?? 30000, false),
    connectedDelayMs: requireDuration('connectedDelayMs', options.connectedDelayMs ?? 0, true),
  };
  const instance = instanceOptions(options);
  const onInternalError = options.onInternalError ?? (() => undefined);
  // An optional peer dependency (an app that only runs the SDK in browsers never installs it):
  // a missing one is a MissingPackageError, which the CLI prints as it is.
  const ws = await loadOptionalPackage<typeof import('ws')>('the reference server', 'ws');
  const { opened, stores } = await openServerStores(options, config, limits, onInternalError);
  // After opening: keys a Redis holds count too.
  const demoRefusal = options.allowDemoCredentials ? undefined : demoCredentialsRefusal(exposureOf(host, options), adminToken, stores.keys.list());
  if (demoRefusal) {
    await opened.close();
    throw demoRefusal;
  }
  const addressRate = createRateLimiter(limits.requestsPerSecondPerAddress);
  const addressOf = (remoteAddress: string | undefined, headers: IncomingHttpHeaders) => clientAddress(trusted, remoteAddress, headers['x-forwarded-for']);
  const gateway = createStreamGateway({ stores, ...durations, limits, ws, addressRate, clientAddress: (req) => addressOf(req.socket.remoteAddress, req.headers) });
  const streams = (environmentId: string) => gateway.subscribersOf(environmentId).length;
  const feed = createChangeFeed({ maxFeeds: limits.changeFeeds, heartbeatMs: requireDuration('changeFeedHeartbeatMs', options.changeFeedHeartbeatMs ?? 20000, false), streams, environmentIds: () => stores.environments.list().map(({ id }) => id) });
  const actions = announcingActions(createServerActions({ working: opened.working, control: opened.control, gateway }), opened.working, feed.announce);
  opened.listen((change) => {
    applyRemoteChange(opened.working, gateway, change);
    const told = remoteAdminChange(change, opened.working);
    if (told) feed.announce(told);
  });
  const counted = countingEventStores(stores, opened, feed.received);
  const undo = () => gateway.close().then(() => opened.close());
  const { self, registry } = await registerInstance({ ...options, ...instance, onError: onInternalError }, () => gateway.connections.size, undo);
  let lifecycle: Lifecycle = 'serving';
  const routes = [
    ...createHealthRoutes({ probes: engineProbes(opened), timeoutMs: instance.readinessTimeoutMs, lifecycle: () => lifecycle }),
    ...createSdkRoutes(counted.stores, counted.events, {
      perKey: createRateLimiter(limits.requestsPerSecondPerKey),
      perAddress: addressRate,
      clientAddress: (request) => addressOf(request.remoteAddress, request.headers),
    }),
    feed.route,
    ...createAdminRoutes({ stores, actions, identifyQueue: opened.identifyQueue, analytics: opened.analytics, streams, instance: () => summarize(self) }),
    ...createInstanceRoutes(registry),
    ...createQueueRoutes(opened.identifyQueue, (id) => stores.environments.get(id) !== undefined),
    ...(options.consoleDir === undefined ? [] : createConsoleRoutes(options.consoleDir)),
  ];
  const guard = (path: string, headers: IncomingHttpHeaders) => {
    const refused = hostRefusal(hosts, headers.host);
    if (refused) throw refused;
    if (path.startsWith(ADMIN_PREFIX)) requireAdminToken(headers, adminToken);
  };

  const http = createHttpServer(withInstanceHeader(createRequestListener(routes, onInternalError, guard), self.id), limits);
  http.server.on('upgrade', guardUpgrade(hosts, gateway.handleUpgrade));

  let port: number;
  try {
    port = await listen(http.server, options.port ?? 0, host);
  } catch (error) {
    feed.close();
    await gateway.close();
    await registry.close();
    await opened.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  // Listener first (no new connection, no new upgrade), streams at once, engines last: every
  // request answered by then had its writes done before its answer.
  const shutdown = async () => {
    const started = performance.now();
    lifecycle = 'closing';
    const deregistered = registry.close();
    feed.close();
    const released = http.close();
    const streams = await gateway.close();
    const requests = await released;
    await deregistered;
    await opened.close();
    try {
      options.onClose?.({ streams, requests, ms: Math.round(performance.now() - started) });
    } catch (error) {
      onInternalError(error);
    }
  };
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    baseUrl: `http://${authority}`,
    wsUrl: `ws://${authority}`,
    port,
    adminToken,
    instanceId: self.id,
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
