import { HttpError, type FlagplaneError } from './errors';
import type { HttpRequest } from './http-types';
import type { SendOutcome } from './http-client';
import { checkSnapshot, parseJson } from './snapshot-parse';
import type { MachineEvent } from './transition';

const SNAPSHOT_PATH = '/sdk/v1/snapshot';
export const SNAPSHOT_ROUTE = `GET ${SNAPSHOT_PATH}`;

export function authHeaders(sdkKey: string): Record<string, string> {
  return { authorization: `Bearer ${sdkKey}` };
}

/** The snapshot request of seed §4: bearer key, `If-None-Match`, optional `minVersion`. `baseUrl` has no trailing slash (resolveOptions trims it). */
export function snapshotRequest(baseUrl: string, sdkKey: string, etag: string | null, minVersion?: number | null): Omit<HttpRequest, 'signal'> {
  const headers = authHeaders(sdkKey);
  if (etag) headers['if-none-match'] = etag;
  return { method: 'GET', url: `${baseUrl}${SNAPSHOT_PATH}${minVersion == null ? '' : `?minVersion=${minVersion}`}`, headers };
}

/** `Retry-After` in ms (delta-seconds or an HTTP date), or `null`. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  // A date is NaN as a number, so it falls through to `Date.parse` (NaN when it is neither).
  const ms = Number.isFinite(+value) ? +value * 1000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? null : Math.max(0, ms);
}

/** Reads the `{ error: { code, message } }` body of protocol.md §5, if there is one. */
export function httpErrorOf(status: number, route: string, body: string): HttpError {
  const { code, message } = (parseJson(body) as { error?: { code?: unknown; message?: unknown } } | null)?.error ?? {};
  return new HttpError(status, route, typeof code === 'string' ? code : undefined, typeof message === 'string' ? message : undefined);
}

/** Turns a transport outcome into a machine event; `null` for a request we aborted. */
export function snapshotOutcomeToEvent(outcome: SendOutcome, now: number, random: number): MachineEvent | null {
  if (outcome.kind === 'aborted') return null;
  let error: FlagplaneError;
  let retryAfterMs: number | null = null;
  if (outcome.kind === 'failed') {
    error = outcome.error;
  } else if (outcome.status === 304) {
    return { type: 'not-modified' };
  } else if (outcome.status === 200) {
    const parsed = checkSnapshot(parseJson(outcome.body), SNAPSHOT_ROUTE);
    if (parsed.kind === 'ok') return { type: 'snapshot-received', snapshot: parsed.snapshot, etag: outcome.header('etag'), source: 'network' };
    error = parsed.error;
  } else {
    error = httpErrorOf(outcome.status, SNAPSHOT_ROUTE, outcome.body);
    if (outcome.status === 429 || outcome.status === 503) retryAfterMs = parseRetryAfter(outcome.header('retry-after'), now);
  }
  return { type: 'fetch-failed', error, retryAfterMs, random };
}
