import type { FlagplaneError } from '../shared/errors';
import { httpErrorOf, type RouteRequest, type SendOutcome } from '../http/http-client';
import { checkSnapshot } from './snapshot-parse';
import { parseJson } from '../shared/parse-json';
import type { MachineEvent } from '../machine/transition';

export const SNAPSHOT_ROUTE = 'GET /sdk/v1/snapshot';

/**
 * The snapshot request of protocol.md §3 (the HTTP client adds the bearer key): `If-None-Match`, and
 * the minimum version in a header, so that every snapshot request has one URL (protocol.md §3).
 */
export const snapshotRequest = (etag: string | null, minVersion: number | null): RouteRequest => ({
  headers: {
    ...(etag && { 'if-none-match': etag }),
    ...(minVersion !== null && { 'flagplane-min-version': `${minVersion}` }),
  },
});

/** `Retry-After` in ms (delta-seconds or an HTTP date), or `null`. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  // A date is NaN as a number, so it falls through to `Date.parse` (NaN when it is neither).
  const ms = Number.isFinite(+value) ? +value * 1000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? null : Math.max(0, ms);
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
    error = httpErrorOf(outcome, SNAPSHOT_ROUTE);
    if (outcome.status === 429 || outcome.status === 503) retryAfterMs = parseRetryAfter(outcome.header('retry-after'), now);
  }
  return { type: 'fetch-failed', error, retryAfterMs, random };
}
