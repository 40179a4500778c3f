import { requireAdminToken } from './auth';
import type { HandlerResult } from './http-responses';
import { HttpError } from './http-responses';
import { parseJsonBody } from './request-body';
import type { Route, RouteHandler, RouteRequest } from './router';
import type { ServerActions } from './server-actions';
import type { ReferenceServerStores } from './stores';

/** protocol.md §9: a thousand-flag snapshot fits. */
export const ADMIN_BODY_LIMIT = 5 * 1024 * 1024;

export interface AdminRouteDeps {
  stores: ReferenceServerStores;
  actions: ServerActions;
  adminToken: string;
}

async function readJson(request: RouteRequest): Promise<unknown> {
  return parseJsonBody(await request.readBody(ADMIN_BODY_LIMIT));
}

function param(request: RouteRequest, name: string): string {
  const value = request.params[name];
  if (value === undefined) throw new Error(`route has no :${name} parameter`);
  return value;
}

/** protocol.md §7. Every handler checks the admin token before anything else. */
export function createAdminRoutes({ stores, actions, adminToken }: AdminRouteDeps): Route[] {
  const admin =
    (handler: (request: RouteRequest) => HandlerResult | Promise<HandlerResult>): RouteHandler =>
    (request) => {
      requireAdminToken(request.headers, adminToken);
      return handler(request);
    };
  const ok = (body: unknown, status = 200): HandlerResult => ({ status, body });

  return [
    {
      pattern: '/admin/v1/environments/:id/snapshot',
      methods: { PUT: admin(async (r) => ok(actions.publish(param(r, 'id'), await readJson(r)))) },
    },
    {
      pattern: '/admin/v1/environments/:id/resync',
      methods: { POST: admin((r) => ok(actions.resync(param(r, 'id')))) },
    },
    {
      pattern: '/admin/v1/environments/:id/keys',
      methods: {
        POST: admin(async (r) => {
          const body = await readJson(r);
          const kind = typeof body === 'object' && body !== null ? (body as { kind?: unknown }).kind : undefined;
          const { key, environmentId } = actions.createKey(param(r, 'id'), kind);
          return ok({ key, kind, environmentId }, 201);
        }),
      },
    },
    {
      pattern: '/admin/v1/keys/:key',
      methods: {
        DELETE: admin((r) => {
          actions.revokeKey(param(r, 'key'));
          return { status: 204 };
        }),
      },
    },
    {
      pattern: '/admin/v1/environments/:id/traits/:userId',
      methods: { PUT: admin(async (r) => ok(actions.setTraits(param(r, 'id'), param(r, 'userId'), await readJson(r)))) },
    },
    {
      pattern: '/admin/v1/environments/:id/identify-queue',
      methods: {
        GET: admin((r) => {
          const id = param(r, 'id');
          if (!stores.environments.get(id)) throw new HttpError(404, 'not_found', `unknown environment "${id}"`);
          return ok({ rows: stores.identifyQueue.forEnvironment(id) });
        }),
      },
    },
    { pattern: '/admin/v1/analytics', methods: { GET: admin(() => ok({ events: stores.analytics.events })) } },
    { pattern: '/admin/v1/diagnostics', methods: { GET: admin(() => ok({ events: stores.diagnostics.events })) } },
  ];
}
