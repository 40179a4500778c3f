import type { IdentifyQueueStore } from '../stores/contracts';
import type { ClaimedRow } from '../stores/records';
import { isRecord } from '../../src/shared/guards';
import { RouteError } from '../http/responses';
import { parseJsonBody } from '../http/request-body';
import type { HandlerRequest, Route } from '../http/router';

/** A claim answers at most this many rows. */
export const CLAIM_LIMIT = 1000;
export const DEFAULT_CLAIM = 100;
/** How long a claim holds its rows before another consumer may take them. */
export const DEFAULT_LEASE_MS = 30_000;

const BODY_LIMIT = 64 * 1024;

async function bodyObject(request: HandlerRequest): Promise<Record<string, unknown>> {
  const body = parseJsonBody(await request.readBody(BODY_LIMIT));
  if (!isRecord(body)) throw new RouteError(400, 'invalid_request', 'the body must be a JSON object');
  return body;
}

function integer(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RouteError(400, 'invalid_request', `${name} must be an integer from ${min} to ${max}`, name);
  }
  return value;
}

function ids(value: unknown): number[] {
  if (!Array.isArray(value) || value.length > CLAIM_LIMIT || !value.every((id) => Number.isSafeInteger(id) && id > 0)) {
    throw new RouteError(400, 'invalid_request', `ids must be an array of at most ${CLAIM_LIMIT} row ids`, 'ids');
  }
  return value as number[];
}

/**
 * The identify queue's consumer side (docs/reference-server.md, "The identify queue"): claim
 * rows, handle them, acknowledge them. Unacknowledged rows are claimable again after the lease.
 */
export function createQueueRoutes(queue: IdentifyQueueStore, environmentExists: (id: string) => boolean): Route[] {
  const environment = (request: HandlerRequest) => {
    const id = request.params.id ?? '';
    if (!environmentExists(id)) throw new RouteError(404, 'not_found', `unknown environment "${id}"`);
    return id;
  };
  return [
    {
      pattern: '/admin/v1/environments/:id/identify-queue/claim',
      methods: {
        POST: async (r) => {
          const id = environment(r);
          const body = await bodyObject(r);
          const limit = integer(body.limit, 'limit', 1, CLAIM_LIMIT, DEFAULT_CLAIM);
          const leaseMs = integer(body.leaseMs, 'leaseMs', 1, 24 * 3_600_000, DEFAULT_LEASE_MS);
          const rows: ClaimedRow[] = await queue.claim(id, limit, leaseMs);
          return { status: 200, body: { rows } };
        },
      },
    },
    {
      pattern: '/admin/v1/environments/:id/identify-queue/ack',
      methods: {
        POST: async (r) => {
          const id = environment(r);
          const deleted = await queue.ack(id, ids((await bodyObject(r)).ids));
          return { status: 200, body: { deleted } };
        },
      },
    },
  ];
}
