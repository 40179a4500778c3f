import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { splitTarget } from '../http/router';
import type { Route } from '../http/router';
import type { InstanceRegistry, ThisInstance } from '../stores/instance-registry';
import { createMemoryInstanceRegistry } from '../stores/instance-registry';
import { openRedisInstanceRegistry } from '../stores/redis-instance-registry';
import { ADMIN_PREFIX } from './admin';

/** The response header naming the instance that answered an admin request. */
export const INSTANCE_HEADER = 'Flagplane-Instance';

/** An instance id goes into a response header: visible ASCII, no spaces, at most 128 characters. */
export function requireInstanceId(id: string): string {
  if (!/^[\x21-\x7e]{1,128}$/.test(id)) throw new RangeError(`instanceId must be 1 to 128 visible ASCII characters without spaces, not ${JSON.stringify(id)}`);
  return id;
}

/** What `GET /admin/v1/diagnostics` says of the instance that answered. */
export interface InstanceSummary {
  id: string;
  startedAt: string;
  streams: number;
}

export function summarize(self: ThisInstance): InstanceSummary {
  return { id: self.id, startedAt: self.startedAt.toISOString(), streams: self.streams() };
}

/**
 * This instance, started now, in the registry: on Redis with `redis`, else in memory (this
 * instance alone). If registering fails, `undo` runs (closing what was opened before) and the
 * error is thrown again.
 */
export async function registerInstance(
  options: { id: string; ttlMs: number; redis?: string | undefined; redisPrefix?: string | undefined; onError: (error: unknown) => void },
  streams: () => number,
  undo: () => Promise<void>,
): Promise<{ self: ThisInstance; registry: InstanceRegistry }> {
  const self: ThisInstance = { id: options.id, startedAt: new Date(), streams };
  if (options.redis === undefined) return { self, registry: createMemoryInstanceRegistry(self) };
  try {
    const registry = await openRedisInstanceRegistry({
      url: options.redis,
      ...(options.redisPrefix !== undefined && { prefix: options.redisPrefix }),
      self,
      ttlMs: options.ttlMs,
      onError: options.onError,
    });
    return { self, registry };
  } catch (error) {
    await undo();
    throw error;
  }
}

/** `GET /admin/v1/instances`: the live instances of the deployment with their open streams. */
export function createInstanceRoutes(registry: InstanceRegistry): Route[] {
  return [{ pattern: '/admin/v1/instances', methods: { GET: async () => ({ status: 200, body: { instances: await registry.list() } }) } }];
}

/** `listener`, with {@link INSTANCE_HEADER} on every answer to a path under /admin/ (a 401 and a 404 included). */
export function withInstanceHeader(listener: RequestListener, instanceId: string): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const target = req.url ?? '/';
    // Only an absolute-form target needs parsing; the snapshot route pays one startsWith.
    const path = target.startsWith('/') ? target : splitTarget(target).path;
    if (path.startsWith(ADMIN_PREFIX)) res.setHeader(INSTANCE_HEADER, instanceId);
    listener(req, res);
  };
}
