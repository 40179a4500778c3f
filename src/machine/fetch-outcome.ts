import type { FlagplaneError } from '../shared/errors';
import { httpErrorOf, type SendOutcome } from '../http/http-client';
import { parseRetryAfter } from '../http/retry-after';
import { parseJson } from '../shared/parse-json';
import { checkSnapshot } from '../snapshot/snapshot-parse';
import { SNAPSHOT_ROUTE } from '../snapshot/snapshot-request';
import type { MachineEvent } from './transition';

/** Turns a snapshot fetch's outcome into a machine event; `null` for a request we aborted. */
export function snapshotOutcomeToEvent(outcome: SendOutcome, now: number, random: number): MachineEvent | null {
  if (outcome.kind === 'aborted') return typeof __FLAGPLANE_BROWSER__ == 'undefined' && outcome.cause !== undefined ? { type: 'fetch-interrupted' } : null;
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
