import type { IncomingHttpHeaders, Server } from 'node:http';
import { requireAdminToken } from './auth';
import type { ServerConfig } from './config';
import { demoConfig, parseServerConfig } from './config';
import { createHttpServer } from './http-server';
import { resolveLimits, type ServerLimits } from './limits';
import { createRateLimiter } from './rate-limit';
import { createRequestListener } from './router';
import { ADMIN_PREFIX, createAdminRoutes } from './routes-admin';
import { createConsoleRoutes } from './routes-console';
import { createSdkRoutes } from './routes-sdk';
import { createServerActions } from './server-actions';
import { generateAdminToken } from './sdk-keys';
import type { SnapshotDraft } from './snapshot-structure';
import type { Evictions, KeyKind, ReferenceServerStores, Traits } from './stores';
import { createEnvironmentStore, createEventLog, createIdentifyQueue, createKeyStore, createTraitStore } from './stores';
import { createStreamGateway } from './stream';

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
  /** What the server holds and accepts at most; each limit not given keeps its default (limits.ts). */
  limits?: Partial<ServerLimits>;
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
  /** The in-memory stores, for tests to read what was routed where. */
  readonly stores: ReferenceServerStores;
  /** Stores the snapshot as version `current + 1` and notifies subscribers. Throws for an unknown environment or a malformed envelope. */
  publish(environmentId: string, snapshot: PublishableSnapshot): { version: number };
  /** Sends `snapshot.resync` (reason `operator`) to the environment's subscribers. */
  resync(environmentId: string): { notified: number };
  /** Creates an SDK key and returns it. */
  createKey(environmentId: string, kind: KeyKind): string;
  /** Revokes a key: 401 from then on, and its streams close with 4403. Throws for an unknown key. */
  revokeKey(key: string): void;
  /** Replaces the trait overlay of a user. */
  setTraits(environmentId: string, userId: string, traits: Traits): void;
  /** Closes streams with 1001, clears every timer, gives in-flight requests up to 2 s to finish, then releases the port. */
  close(): Promise<void>;
}

function createStores(config: ServerConfig, limits: ServerLimits): ReferenceServerStores {
  const environments = config.environments;
  const evictions: Evictions = { events: 0, identifyRows: 0, snapshotVersions: 0, traitUsers: 0, streamsRefused: 0, requestsLimited: 0 };
  const count = (what: keyof Evictions) => () => void (evictions[what] += 1);
  return {
    environments: createEnvironmentStore(environments, limits.snapshotVersions, count('snapshotVersions')),
    keys: createKeyStore(environments.flatMap((env) => env.keys.map((k) => ({ ...k, environmentId: env.id })))),
    traits: createTraitStore(Object.fromEntries(environments.map((env) => [env.id, env.traits ?? {}])), limits.traitUsers, count('traitUsers')),
    identifyQueue: createIdentifyQueue(limits.identifyRows, count('identifyRows')),
    analytics: createEventLog(limits.eventsPerKind, count('events')),
    diagnostics: createEventLog(limits.eventsPerKind, count('events')),
    evictions,
  };
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

/** Starts a reference server; resolves once it listens. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const config = options.config ? parseServerConfig(options.config) : demoConfig();
  const limits = resolveLimits({ ...config.limits, ...options.limits });
  const host = options.host ?? '127.0.0.1';
  const adminToken = config.adminToken ?? generateAdminToken();
  const stores = createStores(config, limits);
  const gateway = createStreamGateway({
    stores,
    heartbeatMs: requireDuration('heartbeatMs', options.heartbeatMs ?? 15000, false),
    transportPingMs: requireDuration('transportPingMs', options.transportPingMs ?? 30000, false),
    connectedDelayMs: requireDuration('connectedDelayMs', options.connectedDelayMs ?? 0, true),
    limits,
  });
  const actions = createServerActions(stores, gateway);
  const streams = (environmentId: string) =>
    [...gateway.connections].filter((c) => c.phase === 'open' && c.subscribed && c.environmentId === environmentId).length;
  const routes = [
    ...createSdkRoutes(stores, createRateLimiter(limits.requestsPerSecondPerKey)),
    ...createAdminRoutes({ stores, actions, streams }),
    ...(options.consoleDir === undefined ? [] : createConsoleRoutes(options.consoleDir)),
  ];
  const adminOnly = (path: string, headers: IncomingHttpHeaders) => {
    if (path.startsWith(ADMIN_PREFIX)) requireAdminToken(headers, adminToken);
  };

  const http = createHttpServer(createRequestListener(routes, options.onInternalError ?? (() => undefined), adminOnly), limits);
  http.server.on('upgrade', gateway.handleUpgrade);

  let port: number;
  try {
    port = await listen(http.server, options.port ?? 0, host);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const shutdown = async () => {
    const released = http.close();
    await gateway.close();
    await released;
  };
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    baseUrl: `http://${authority}`,
    wsUrl: `ws://${authority}`,
    port,
    adminToken,
    stores,
    publish: (environmentId, snapshot) => ({ version: actions.publish(environmentId, snapshot).version }),
    resync: (environmentId) => ({ notified: actions.resync(environmentId).notified }),
    createKey: (environmentId, kind) => actions.createKey(environmentId, kind).key,
    revokeKey: (key) => actions.revokeKey(key),
    setTraits: (environmentId, userId, traits) => {
      actions.setTraits(environmentId, userId, traits);
    },
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}
