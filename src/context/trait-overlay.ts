import { SchemaError, type FlagplaneError } from '../shared/errors';
import { isRecord } from '../shared/guards';
import { httpErrorOf, type HttpClient } from '../http/http-client';
import { parseJson } from '../shared/parse-json';
import type { JsonValue } from '../snapshot/snapshot-types';

const ROUTE = 'GET /sdk/v1/identity';

export type Traits = Record<string, JsonValue>;

/**
 * Returns the function that fetches a user's trait overlay (the `{ userId, traits }` answer
 * of protocol.md §4) and hands its traits to `apply`: a new request aborts the previous
 * one, and an answer is applied or reported only while `currentUser()` is still the user
 * it was asked for. `http.abort()` aborts the one in flight.
 */
export function createOverlayFetcher(
  http: HttpClient,
  currentUser: () => string | undefined,
  apply: (traits: Traits) => void,
  report: (error: FlagplaneError) => void,
) {
  let controller: AbortController | undefined;
  return async (userId: string): Promise<void> => {
    if (controller) http.abort(controller);
    const outcome = await http.send(ROUTE, { query: `?userId=${encodeURIComponent(userId)}` }, (controller = new AbortController()));
    // A slow overlay for a user who has since identified as someone else is discarded.
    if (outcome.kind === 'aborted' || currentUser() !== userId) return;
    const ok = outcome.kind === 'response' && outcome.status === 200;
    // `undefined` for a body that is not JSON.
    const body = ok && (parseJson(outcome.body) as { userId?: unknown; traits?: unknown } | null | undefined);
    if (body && body.userId === userId && isRecord(body.traits)) apply(body.traits as Traits);
    else report(outcome.kind === 'failed' ? outcome.error : ok ? new SchemaError(`${ROUTE}: no traits`) : httpErrorOf(outcome, ROUTE));
  };
}
