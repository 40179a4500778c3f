import { authHeaders, httpErrorOf } from './snapshot-fetch';
import type { HttpClient } from './http-client';
import type { FlagplaneError } from './errors';
import { SchemaError } from './errors';
import type { SendOutcome } from './http-client';
import type { JsonValue } from './snapshot-types';

export const IDENTITY_ROUTE = 'GET /sdk/v1/identity';

export type Traits = Record<string, JsonValue>;

export type OverlayResult = { kind: 'ok'; traits: Traits } | { kind: 'failed'; error: FlagplaneError } | { kind: 'aborted' };

const isTraits = (value: unknown): value is Traits => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads the `{ userId, traits }` answer of protocol.md §4. */
export function overlayFrom(outcome: SendOutcome, userId: string): OverlayResult {
  if (outcome.kind !== 'response') return outcome;
  if (outcome.status !== 200) return { kind: 'failed', error: httpErrorOf(outcome.status, IDENTITY_ROUTE, outcome.body) };
  try {
    const body = JSON.parse(outcome.body) as { userId?: unknown; traits?: unknown };
    if (body.userId === userId && isTraits(body.traits)) return { kind: 'ok', traits: body.traits };
  } catch {
    // reported below
  }
  return { kind: 'failed', error: new SchemaError(`${IDENTITY_ROUTE}: the body is not { userId, traits } for "${userId}"`) };
}

/** Session traits win over the overlay on conflict (seed §2.4). */
export const mergeTraits = (overlay: Traits, session: Traits): Traits => ({ ...overlay, ...session });

/**
 * Fetches trait overlays one user at a time: a new request aborts the previous one, and an
 * answer is applied only while `currentUser()` is still the user it was asked for.
 */
export function createOverlayFetcher(options: {
  http: HttpClient;
  baseUrl: string;
  sdkKey: string;
  currentUser(): string | undefined;
  apply(traits: Traits): void;
  report(error: FlagplaneError): void;
}) {
  let controller: AbortController | null = null;
  return {
    fetch(userId: string): Promise<void> {
      controller?.abort();
      const mine = new AbortController();
      controller = mine;
      const url = `${options.baseUrl}/sdk/v1/identity?userId=${encodeURIComponent(userId)}`;
      return options.http.send({ method: 'GET', url, headers: authHeaders(options.sdkKey) }, IDENTITY_ROUTE, mine).then((outcome) => {
        // A slow overlay for a user who has since identified as someone else is discarded.
        if (controller !== mine || options.currentUser() !== userId) return;
        controller = null;
        const overlay = overlayFrom(outcome, userId);
        if (overlay.kind === 'failed') options.report(overlay.error);
        else if (overlay.kind === 'ok') options.apply(overlay.traits);
      });
    },
    abort(): void {
      controller?.abort();
    },
  };
}
