import type { IncomingHttpHeaders, Server } from 'node:http';
import { requireAdminToken } from './http/auth';
import type { ServerConfig } from './config';
import { demoConfig, parseServerConfig, seedFromConfig } from './config';
import { createHttpServer } from './http/http-server';
import { resolveLimits, type ServerLimits } from './http/limits';
import { createRateLimiter } from './http/rate-limit';
import { createCompressionCache } from './http/compression';
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
import type { ReferenceServerStores } from './stores/contracts';
import type { Evictions } from './stores/records';
import { createEventLog } from './stores/event-log';
import { createIdentifyLog } from './stores/identify-log';
import { createStreamGateway } from './stream/gateway';
import { loadOptionalPackage } from './stores/optional-package';
import { createHealthRoutes, engineProbes, type Lifecycle } from './routes/health';
import { createInstanceRoutes, registerInstance, requireInstanceId, summarize, withInstanceHeader } from './routes/instances';
import { DEFAULT_INSTANCE_TTL_MS, defaultInstanceId } from './stores/instance-registry';
import { DEFAULT_READINESS_TIMEOUT_MS } from './stores/readiness';
import type { ReferenceServer, ReferenceServerOptions } from './server-types';

export type { PublishableSnapshot, ReferenceServer, ReferenceServerOptions, ShutdownReport } from './server-types';


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

/** Every option checked and defaulted, before anything opens. */
function resolveSettings(options: ReferenceServerOptions) {
  const config = options.config ? parseServerConfig(options.config) : demoConfig();
  const host = options.host ?? '127.0.0.1';
  if (options.adminToken !== undefined && options.adminToken.length < 8) throw new RangeError('adminToken must be at least 8 characters');
  return {
    config,
    host,
    limits: resolveLimits({ ...config.limits, ...options.limits }),
    adminToken: options.adminToken ?? config.adminToken ?? generateAdminToken(),
    trusted: parseTrustedProxies(options.trustProxy ?? config.trustProxy),
    hosts: hostPolicy(host, options.allowedHosts ?? config.allowedHosts),
    durations: {
      heartbeatMs: requireDuration('heartbeatMs', options.heartbeatMs ?? 15000, false),
      transportPingMs: requireDuration('transportPingMs', options.transportPingMs ?? 30000, false),
      connectedDelayMs: requireDuration('connectedDelayMs', options.connectedDelayMs ?? 0, true),
    },
    feedHeartbeatMs: requireDuration('changeFeedHeartbeatMs', options.changeFeedHeartbeatMs ?? 20000, false),
    instance: instanceOptions(options),
    onInternalError: options.onInternalError ?? (() => undefined),
  };
}

type Settings = ReturnType<typeof resolveSettings>;
type OpenedStores = Awaited<ReturnType<typeof openServerStores>>;

/** The stream gateway, the admin change feed and the actions that write and announce, over opened stores. */
function createServices(settings: Settings, { opened, stores }: OpenedStores, ws: typeof import('ws')) {
  const { limits, trusted } = settings;
  const addressRate = createRateLimiter(limits.requestsPerSecondPerAddress);
  const addressOf = (remoteAddress: string | undefined, headers: IncomingHttpHeaders) => clientAddress(trusted, remoteAddress, headers['x-forwarded-for']);
  const gateway = createStreamGateway({ stores, ...settings.durations, limits, ws, addressRate, clientAddress: (req) => addressOf(req.socket.remoteAddress, req.headers) });
  const streams = (environmentId: string) => gateway.subscribersOf(environmentId).length;
  const environmentIds = () => stores.environments.list().map(({ id }) => id);
  const feed = createChangeFeed({ maxFeeds: limits.changeFeeds, heartbeatMs: settings.feedHeartbeatMs, streams, environmentIds });
  const actions = announcingActions(createServerActions({ working: opened.working, control: opened.control, gateway }), opened.working, feed.announce);
  opened.listen((change) => {
    applyRemoteChange(opened.working, gateway, change);
    const told = remoteAdminChange(change, opened.working);
    if (told) feed.announce(told);
  });
  const sdkLimits = {
    perKey: createRateLimiter(limits.requestsPerSecondPerKey),
    perAddress: addressRate,
    clientAddress: (request: { remoteAddress?: string; headers: IncomingHttpHeaders }) => addressOf(request.remoteAddress, request.headers),
  };
  return { gateway, streams, feed, actions, counted: countingEventStores(stores, opened, feed.received), sdkLimits };
}

/** The `ReferenceServer` a caller holds: its addresses and the actions an operator takes. */
function serverHandle(fields: Pick<ReferenceServer, 'port' | 'adminToken' | 'instanceId' | 'stores' | 'engines' | 'close'>, host: string, actions: Services['actions']): ReferenceServer {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${fields.port}`;
  return {
    ...fields,
    baseUrl: `http://${authority}`,
    wsUrl: `ws://${authority}`,
    publish: async (environmentId, snapshot) => ({ version: (await actions.publish(environmentId, snapshot)).version }),
    resync: async (environmentId) => ({ notified: (await actions.resync(environmentId)).notified }),
    createKey: async (environmentId, kind) => (await actions.createKey(environmentId, kind)).key,
    revokeKey: (key) => actions.revokeKey(key),
    setTraits: async (environmentId, userId, traits) => {
      await actions.setTraits(environmentId, userId, traits);
    },
  };
}

type Services = ReturnType<typeof createServices>;

/** Starts a reference server; resolves once it listens. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const settings = resolveSettings(options);
  const { host, limits, adminToken, hosts, instance, onInternalError } = settings;
  // An optional peer dependency (an app that only runs the SDK in browsers never installs it):
  // a missing one is a MissingPackageError, which the CLI prints as it is.
  const ws = await loadOptionalPackage<typeof import('ws')>('the reference server', 'ws');
  const { opened, stores } = await openServerStores(options, settings.config, limits, onInternalError);
  // After opening: keys a Redis holds count too.
  const demoRefusal = options.allowDemoCredentials ? undefined : demoCredentialsRefusal(exposureOf(host, options), adminToken, stores.keys.list());
  if (demoRefusal) {
    await opened.close();
    throw demoRefusal;
  }
  const { gateway, streams, feed, actions, counted, sdkLimits } = createServices(settings, { opened, stores }, ws);
  const undo = () => gateway.close().then(() => opened.close());
  const { self, registry } = await registerInstance({ ...options, ...instance, onError: onInternalError }, () => gateway.connections.size, undo);
  let lifecycle: Lifecycle = 'serving';
  const compression = createCompressionCache(limits.compressedCacheBytes);
  const routes = [
    ...createHealthRoutes({ probes: engineProbes(opened), timeoutMs: instance.readinessTimeoutMs, lifecycle: () => lifecycle }),
    ...createSdkRoutes(counted.stores, counted.events, sdkLimits, compression),
    feed.route,
    ...createAdminRoutes({ stores, actions, identifyQueue: opened.identifyQueue, analytics: opened.analytics, streams, instance: () => summarize(self), bodyLimit: limits.adminBodyBytes, compression }),
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
  // Listener first (no new connection, no new upgrade), streams at once, engines last: every
  // request answered by then had its writes done before its answer.
  const shutdown = async () => {
    const started = performance.now();
    lifecycle = 'closing';
    const deregistered = registry.close();
    feed.close();
    const released = http.close();
    const streamsClosed = await gateway.close();
    const requests = await released;
    await deregistered;
    await opened.close();
    try {
      options.onClose?.({ streams: streamsClosed, requests, ms: Math.round(performance.now() - started) });
    } catch (error) {
      onInternalError(error);
    }
  };
  let closing: Promise<void> | undefined;
  const engines = { control: opened.control.engine === 'redis' ? 'redis' : 'memory', events: opened.analytics.engine === 'postgres' ? 'postgres' : 'memory' } as const;
  const close = () => (closing ??= shutdown());
  return serverHandle({ port, adminToken, instanceId: self.id, stores, engines, close }, host, actions);
}
