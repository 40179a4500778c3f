import { createCompressionCache, type CompressionCache } from '../http/compression';
import { encodedJson } from '../http/encoded-answer';
import { DEFAULT_LIMITS } from '../http/limits';
import type { HandlerResult } from '../http/responses';
import { RouteError } from '../http/responses';
import { parseJsonBody } from '../http/request-body';
import { decodeBody } from '../http/body-encoding';
import type { HandlerRequest, Route } from '../http/router';
import type { ServerActions } from './server-actions';
import type { LogPage } from '../stores/bounded-log';
import type { AnalyticsStore, IdentifyQueueStore, ReferenceServerStores } from '../stores/contracts';
import type { EnvironmentRecord, EnvironmentStore } from '../stores/environment-store';
import type { KeyStore } from '../stores/key-store';
import type { KeyRecord } from '../stores/records';
import type { InstanceSummary } from './instances';

/** Every admin route is under it; the admin token is checked for every path under it. */
export const ADMIN_PREFIX = '/admin/';

export interface AdminRouteDeps {
  stores: ReferenceServerStores;
  actions: ServerActions;
  identifyQueue: IdentifyQueueStore;
  analytics: AnalyticsStore;
  /** Open stream connections subscribed to the environment. */
  streams(environmentId: string): number;
  /** The instance that answers, for the diagnostics. */
  instance(): InstanceSummary;
  /** The `adminBodyBytes` limit: bytes of a body as sent, and once decompressed. */
  bodyLimit: number;
  /** Where compressed listings are kept. @default a cache of its own, at the default size */
  compression?: CompressionCache;
}

/** Entries per page of an admin listing without `?limit=`, and the most a `?limit=` may ask for. */
export const PAGE_SIZE = { default: 100, max: 1000 };

/** `?limit=` and `?cursor=` of a listing: how many entries, and older than which. */
function pageRequest(request: HandlerRequest): { limit: number; before: number | undefined } {
  const limit = request.query.get('limit') ?? String(PAGE_SIZE.default);
  if (!/^\d{1,9}$/.test(limit) || Number(limit) > PAGE_SIZE.max) {
    throw new RouteError(400, 'invalid_request', `limit must be an integer from 0 to ${PAGE_SIZE.max}`, 'limit');
  }
  const cursor = request.query.get('cursor');
  if (cursor !== null && !/^[1-9]\d{0,15}$/.test(cursor)) {
    throw new RouteError(400, 'invalid_request', 'cursor must be the nextCursor of an earlier page', 'cursor');
  }
  return { limit: Number(limit), before: cursor === null ? undefined : Number(cursor) };
}

/**
 * One page of a log: the newest `limit` entries (older than the cursor), oldest first, and
 * `nextCursor` while older ones remain. Never more than PAGE_SIZE.max entries per answer.
 */
async function listing<T>(
  name: string,
  request: HandlerRequest,
  read: (limit: number, before?: number) => LogPage<T> | Promise<LogPage<T>>,
): Promise<HandlerResult> {
  const { limit, before } = pageRequest(request);
  const { entries, more } = await read(limit, before);
  const page: Record<string, unknown> = { [name]: entries.map(({ entry }) => entry) };
  if (more && entries.length > 0) page.nextCursor = String(entries[0]!.seq);
  return { status: 200, body: page };
}

/** The body as JSON: at most `limit` bytes as sent, and again once a gzip body is decompressed. */
async function readBodyJson(request: HandlerRequest, limit: number): Promise<unknown> {
  return parseJsonBody(await decodeBody(request.headers, await request.readBody(limit), limit));
}

function param(request: HandlerRequest, name: string): string {
  const value = request.params[name];
  if (value === undefined) throw new Error(`route has no :${name} parameter`);
  return value;
}

/** An environment with its versions, its current snapshot and its open streams. */
function environmentInfo({ id, kind, kv }: EnvironmentRecord, streams: (environmentId: string) => number) {
  return { id, kind, version: kv.current, versions: [...kv.snapshots.keys()].sort((a, b) => a - b), streams: streams(id), snapshot: kv.snapshots.get(kv.current) };
}

/** Every environment, as {@link environmentInfo}. */
function listEnvironments(environments: EnvironmentStore, streams: (environmentId: string) => number) {
  return environments.list().map((record) => environmentInfo(record, streams));
}

/** Everything of an environment's info but its snapshot, which its version fixes: what its JSON changes with. */
function infoVersion(infos: ReadonlyArray<ReturnType<typeof environmentInfo>>): string {
  return JSON.stringify(infos.map(({ snapshot: _snapshot, ...rest }) => rest));
}

/** The environment listings, which carry whole snapshots: compressed per `Accept-Encoding`, once per content. */
export function environmentReads(environments: EnvironmentStore, streams: (environmentId: string) => number, compression: CompressionCache) {
  return {
    list(request: HandlerRequest) {
      const infos = listEnvironments(environments, streams);
      return encodedJson(compression, request.headers, 'admin environments', infoVersion(infos), { environments: infos });
    },
    one(request: HandlerRequest, id: string) {
      const info = environmentInfo(environments.get(id)!, streams);
      return encodedJson(compression, request.headers, `admin environment ${id}`, infoVersion([info]), info);
    },
  };
}

/** Keys in the order they were added; the cursor is a position in that order. */
function keysPage(keys: KeyStore, limit: number, before = Infinity): LogPage<KeyRecord> {
  const all = keys.list();
  const end = Math.min(all.length, before - 1);
  const start = Math.max(0, end - limit);
  const entries = all.slice(start, end).map(({ key, kind, environmentId, revoked }, i) => ({ seq: start + i + 1, entry: { key, kind, environmentId, revoked } }));
  return { entries, more: start > 0 };
}

/**
 * protocol.md §7. The router checks the admin token of every /admin/ request before it looks
 * for a route (server.ts), so these handlers never see a request without it.
 */
export function createAdminRoutes({ stores, actions, identifyQueue, analytics, streams, instance, bodyLimit, compression }: AdminRouteDeps): Route[] {
  const readJson = (request: HandlerRequest) => readBodyJson(request, bodyLimit);
  const ok = (body: unknown, status = 200): HandlerResult => ({ status, body });
  const reads = environmentReads(stores.environments, streams, compression ?? createCompressionCache(DEFAULT_LIMITS.compressedCacheBytes));
  const environment = (request: HandlerRequest) => {
    const id = param(request, 'id');
    if (!stores.environments.get(id)) throw new RouteError(404, 'not_found', `unknown environment "${id}"`);
    return id;
  };

  return [
    { pattern: '/admin/v1/environments', methods: { GET: (r) => reads.list(r) } },
    { pattern: '/admin/v1/environments/:id', methods: { GET: (r) => reads.one(r, environment(r)) } },
    {
      pattern: '/admin/v1/environments/:id/flags/:key',
      methods: {
        PUT: async (r) => ok(await actions.putFlag(param(r, 'id'), param(r, 'key'), await readJson(r))),
        PATCH: async (r) => ok(await actions.patchFlag(param(r, 'id'), param(r, 'key'), await readJson(r))),
        DELETE: async (r) => ok(await actions.deleteFlag(param(r, 'id'), param(r, 'key'))),
      },
    },
    { pattern: '/admin/v1/keys', methods: { GET: (r) => listing('keys', r, (limit, before) => keysPage(stores.keys, limit, before)) } },
    {
      pattern: '/admin/v1/environments/:id/snapshot',
      methods: { PUT: async (r) => ok(await actions.publish(param(r, 'id'), await readJson(r), true)) },
    },
    {
      pattern: '/admin/v1/environments/:id/resync',
      methods: { POST: async (r) => ok(await actions.resync(param(r, 'id'))) },
    },
    {
      pattern: '/admin/v1/environments/:id/keys',
      methods: {
        POST: async (r) => {
          const body = await readJson(r);
          const kind = typeof body === 'object' && body !== null ? (body as { kind?: unknown }).kind : undefined;
          const { key, environmentId } = await actions.createKey(param(r, 'id'), kind);
          return ok({ key, kind, environmentId }, 201);
        },
      },
    },
    {
      pattern: '/admin/v1/keys/:key',
      methods: {
        DELETE: async (r) => {
          await actions.revokeKey(param(r, 'key'));
          return { status: 204 };
        },
      },
    },
    {
      pattern: '/admin/v1/environments/:id/traits/:userId',
      methods: { PUT: async (r) => ok(await actions.setTraits(param(r, 'id'), param(r, 'userId'), await readJson(r))) },
    },
    {
      pattern: '/admin/v1/environments/:id/identify-queue',
      methods: {
        GET: (r) => {
          const id = environment(r);
          return listing('rows', r, (limit, before) => identifyQueue.page(id, limit, before));
        },
      },
    },
    { pattern: '/admin/v1/analytics', methods: { GET: (r) => listing('events', r, analytics.page) } },
    {
      pattern: '/admin/v1/diagnostics',
      methods: {
        GET: async (r) => {
          const page = await listing('events', r, stores.diagnostics.page);
          return { ...page, body: { ...(page.body as object), evicted: { ...stores.evictions }, instance: instance() } };
        },
      },
    },
  ];
}
