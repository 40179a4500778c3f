import { SchemaError, type FlagplaneError } from './errors';
import { isObject } from './evaluation/guards';
import type { HttpClient } from './http-client';
import { authHeaders, httpErrorOf } from './snapshot-fetch';
import type { JsonValue } from './snapshot-types';

const PATH = '/sdk/v1/identity';
const ROUTE = `GET ${PATH}`;

export type Traits = Record<string, JsonValue>;

/** Session traits win over the overlay on conflict (seed §2.4). */
export const mergeTraits = (overlay: Traits, session: Traits): Traits => ({ ...overlay, ...session });

/**
 * Fetches trait overlays (the `{ userId, traits }` answer of protocol.md §4): a new request
 * aborts the previous one, and an answer is applied or reported only while `currentUser()`
 * is still the user it was asked for.
 */
export function createOverlayFetcher(options: {
  http: HttpClient;
  baseUrl: string;
  sdkKey: string;
  currentUser(): string | undefined;
  apply(traits: Traits): void;
  report(error: FlagplaneError): void;
}) {
  let controller: AbortController | undefined;
  return {
    fetch(userId: string): Promise<void> {
      controller?.abort();
      controller = new AbortController();
      const url = `${options.baseUrl}${PATH}?userId=${encodeURIComponent(userId)}`;
      return options.http.send({ method: 'GET', url, headers: authHeaders(options.sdkKey) }, ROUTE, controller).then((outcome) => {
        // A slow overlay for a user who has since identified as someone else is discarded.
        if (outcome.kind === 'aborted' || options.currentUser() !== userId) return;
        if (outcome.kind === 'failed') return options.report(outcome.error);
        if (outcome.status !== 200) return options.report(httpErrorOf(outcome.status, ROUTE, outcome.body));
        let traits: unknown;
        try {
          const body = JSON.parse(outcome.body) as { userId?: unknown; traits?: unknown } | null;
          if (body?.userId === userId) traits = body.traits;
        } catch {
          // Not JSON: reported below.
        }
        if (isObject(traits) && !Array.isArray(traits)) return options.apply(traits as Traits);
        options.report(new SchemaError(`${ROUTE}: no traits for "${userId}"`));
      });
    },
    abort: () => controller?.abort(),
  };
}
