import type { HandlerResult } from './http-responses';
import { HttpError } from './http-responses';
import { parseJsonBody } from './request-body';
import type { Route, RouteRequest } from './router';
import { newest } from './engines/memory-event-stores';
import type { ServerActions } from './server-actions';
import type { AnalyticsStore, IdentifyQueueStore } from './engines/contracts';
import type { ReferenceServerStores } from './stores';

/** Every admin route is under it; the admin token is checked for every path under it. */
export const ADMIN_PREFIX = '/admin/';

/** protocol.md §9: a thousand-flag snapshot fits. */
export const ADMIN_BODY_LIMIT = 5 * 1024 * 1024;

export interface AdminRouteDeps {
  stores: ReferenceServerStores;
  actions: ServerActions;
  identifyQueue: IdentifyQueueStore;
  analytics: AnalyticsStore;
  /** Open stream connections subscribed to the environment. */
  streams(environmentId: string): number;
}

/** `?limit=`: how many of the newest entries of a log to answer (all without it); a console polls the tail. */
function limitOf(request: RouteRequest): number | undefined {
  const limit = request.query.get('limit');
  if (limit === null) return undefined;
  if (!/^\d{1,9}$/.test(limit)) throw new HttpError(400, 'invalid_request', 'limit must be a non-negative integer', 'limit');
  return Number(limit);
}

async function readJson(request: RouteRequest): Promise<unknown> {
  return parseJsonBody(await request.readBody(ADMIN_BODY_LIMIT));
}

function param(request: RouteRequest, name: string): string {
  const value = request.params[name];
  if (value === undefined) throw new Error(`route has no :${name} parameter`);
  return value;
}

/**
 * protocol.md §7. The router checks the admin token of every /admin/ request before it looks
 * for a route (server.ts), so these handlers never see a request without it.
 */
export function createAdminRoutes({ stores, actions, identifyQueue, analytics, streams }: AdminRouteDeps): Route[] {
  const ok = (body: unknown, status = 200): HandlerResult => ({ status, body });
  const environment = (request: RouteRequest) => {
    const id = param(request, 'id');
    if (!stores.environments.get(id)) throw new HttpError(404, 'not_found', `unknown environment "${id}"`);
    return id;
  };

  return [
    {
      pattern: '/admin/v1/environments',
      methods: {
        GET: () =>
          ok({
            environments: stores.environments.list().map(({ id, kind, kv }) => ({
              id,
              kind,
              version: kv.current,
              versions: [...kv.snapshots.keys()].sort((a, b) => a - b),
              streams: streams(id),
              snapshot: kv.snapshots.get(kv.current),
            })),
          }),
      },
    },
    {
      pattern: '/admin/v1/environments/:id/flags/:key',
      methods: {
        PUT: async (r) => ok(await actions.putFlag(param(r, 'id'), param(r, 'key'), await readJson(r))),
        PATCH: async (r) => ok(await actions.patchFlag(param(r, 'id'), param(r, 'key'), await readJson(r))),
        DELETE: async (r) => ok(await actions.deleteFlag(param(r, 'id'), param(r, 'key'))),
      },
    },
    {
      pattern: '/admin/v1/keys',
      methods: { GET: () => ok({ keys: stores.keys.list().map(({ key, kind, environmentId, revoked }) => ({ key, kind, environmentId, revoked })) }) },
    },
    {
      pattern: '/admin/v1/environments/:id/snapshot',
      methods: { PUT: async (r) => ok(await actions.publish(param(r, 'id'), await readJson(r))) },
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
        GET: async (r) => ok({ rows: await identifyQueue.list(environment(r), limitOf(r)) }),
      },
    },
    { pattern: '/admin/v1/analytics', methods: { GET: async (r) => ok({ events: await analytics.list(limitOf(r)) }) } },
    { pattern: '/admin/v1/diagnostics', methods: { GET: (r) => ok({ events: newest(stores.diagnostics.events, limitOf(r)) }) } },
  ];
}
