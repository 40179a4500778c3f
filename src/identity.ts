import { SchemaError, type FlagplaneError } from './errors';
import { isRecord } from './evaluation/guards';
import { httpErrorOf, type HttpClient } from './http-client';
import { parseJson } from './snapshot-parse';
import type { JsonValue } from './snapshot-types';

const ROUTE = 'GET /sdk/v1/identity';

export type Traits = Record<string, JsonValue>;

/**
 * Returns the function that fetches a user's trait overlay (the `{ userId, traits }` answer
 * of protocol.md §4) and hands its traits to `apply`: a new request aborts the previous
 * one, and an answer is applied or reported only while `currentUser()` is still the user
 * it was asked for. `http.abortAll()` aborts the one in flight.
 */
export function createOverlayFetcher(
  http: HttpClient,
  currentUser: () => string | undefined,
  apply: (traits: Traits) => void,
  report: (error: FlagplaneError) => void,
) {
  let controller: AbortController | undefined;
  return (userId: string): Promise<void> => {
    controller?.abort();
    controller = new AbortController();
    return http.send(ROUTE, { query: `?userId=${encodeURIComponent(userId)}` }, controller).then((outcome) => {
      // A slow overlay for a user who has since identified as someone else is discarded.
      if (outcome.kind === 'aborted' || currentUser() !== userId) return;
      if (outcome.kind === 'failed') return report(outcome.error);
      if (outcome.status !== 200) return report(httpErrorOf(outcome, ROUTE));
      // `undefined` for a body that is not JSON.
      const body = parseJson(outcome.body) as { userId?: unknown; traits?: unknown } | null | undefined;
      if (body?.userId === userId && isRecord(body.traits)) return apply(body.traits as Traits);
      report(new SchemaError(`${ROUTE}: no traits`));
    });
  };
}
