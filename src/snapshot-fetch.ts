import { HttpError } from './errors';
import type { HttpRequest } from './http-types';
import type { SendOutcome } from './http-client';
import { parseSnapshot } from './snapshot-parse';
import type { MachineEvent } from './transition';

export const SNAPSHOT_ROUTE = 'GET /sdk/v1/snapshot';

export function authHeaders(sdkKey: string): Record<string, string> {
  return { authorization: `Bearer ${sdkKey}` };
}

/** The snapshot request of seed §4: bearer key, `If-None-Match`, optional `minVersion`. `baseUrl` has no trailing slash (resolveOptions trims it). */
export function snapshotRequest(baseUrl: string, sdkKey: string, etag: string | null, minVersion?: number): Omit<HttpRequest, 'signal'> {
  const headers = authHeaders(sdkKey);
  if (etag) headers['if-none-match'] = etag;
  const query = minVersion === undefined ? '' : `?minVersion=${minVersion}`;
  return { method: 'GET', url: `${baseUrl}/sdk/v1/snapshot${query}`, headers };
}

/** `Retry-After` in ms (delta-seconds or an HTTP date), or `null`. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Reads the `{ error: { code, message } }` body of protocol.md §5, if there is one. */
export function httpErrorOf(status: number, route: string, body: string): HttpError {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = parsed.error ?? {};
    return new HttpError(status, route, typeof code === 'string' ? code : undefined, typeof message === 'string' ? message : undefined);
  } catch {
    return new HttpError(status, route);
  }
}

/** Turns a transport outcome into a machine event; `null` for a request we aborted. */
export function snapshotOutcomeToEvent(outcome: SendOutcome, now: number, random: number): MachineEvent | null {
  if (outcome.kind === 'aborted') return null;
  if (outcome.kind === 'failed') return { type: 'fetch-failed', error: outcome.error, retryAfterMs: null, random };
  if (outcome.status === 304) return { type: 'not-modified' };
  if (outcome.status === 200) {
    const parsed = parseSnapshot(outcome.body, SNAPSHOT_ROUTE);
    if (parsed.kind === 'invalid') return { type: 'fetch-failed', error: parsed.error, retryAfterMs: null, random };
    return { type: 'snapshot-received', snapshot: parsed.snapshot, etag: outcome.header('etag'), source: 'network' };
  }
  const retryAfterMs = outcome.status === 429 || outcome.status === 503 ? parseRetryAfter(outcome.header('retry-after'), now) : null;
  return { type: 'fetch-failed', error: httpErrorOf(outcome.status, SNAPSHOT_ROUTE, outcome.body), retryAfterMs, random };
}
