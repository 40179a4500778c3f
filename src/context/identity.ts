import type { EvaluationContext } from '../evaluation/evaluation-types';
import type { EventSender } from '../events/event-sender';
import type { HttpClient } from '../http/http-client';
import { noContext } from '../reads/flag-values';
import { ConfigError, type FlagplaneError } from '../shared/errors';
import { isId, isRecord, isString } from '../shared/guards';
import type { Scheduler } from '../shared/scheduler';
import type { JsonValue } from '../snapshot/snapshot-types';
import type { StorageAdapter } from '../storage/storage-types';
import { generateId, loadAnonymousId } from './anonymous-id';
import { createOverlayFetcher, type Traits } from './trait-overlay';

export interface IdentityOptions {
  context?: EvaluationContext;
  anonymousId?: string;
  anonymousStorageKey?: string;
  remoteTraits?: boolean;
}

/** What the identity part uses of the rest of the client. */
export interface IdentityParts {
  http: HttpClient;
  events: Pick<EventSender, 'push'> | null;
  storage: StorageAdapter | undefined;
  report(error: FlagplaneError): void;
  /** After a change of context or bucketing key: the flags read so far are evaluated again. */
  reevaluate(): void;
  closed(): boolean;
  offline(): boolean;
}

/**
 * The client's context and identity: the evaluation context, the session traits (what the
 * app set, which win over the remote overlay), the anonymous id that buckets while there
 * is no userId, and `identify()` with the trait overlay it fetches.
 */
export function createIdentity(options: IdentityOptions & { scheduler: Scheduler }, parts: IdentityParts) {
  const { events, report, reevaluate, closed } = parts;
  let context: EvaluationContext = options.context ?? noContext();
  let sessionTraits = (context.attributes ?? {}) as Traits;
  /** Identified while offline: the user whose overlay is fetched back online. */
  let overlayDue: string | undefined;
  let anonymousId = options.anonymousId || generateId(options.scheduler.random);
  const bucketingKeyOf = (reader: EvaluationContext) => reader.userId ?? anonymousId;

  const fetchOverlay = createOverlayFetcher(
    parts.http,
    () => context.userId,
    (traits) => {
      // Session traits win over the overlay on conflict (protocol.md §8.3).
      context = { ...context, attributes: { ...traits, ...sessionTraits } };
      reevaluate();
    },
    report,
  );

  return {
    context: () => context,
    bucketingKeyOf,
    bucketingKey: () => bucketingKeyOf(context),
    /** Reads the persisted anonymous id, or persists the generated one (no-op with an `anonymousId` given). */
    loadAnonymousId(): void {
      if (options.anonymousId) return;
      loadAnonymousId(parts.storage, options.anonymousStorageKey ?? 'svc:anonymousId', anonymousId, (stored) => {
        // Too late after close(): reads stay as they were.
        if (closed()) return;
        anonymousId = stored;
        // With a userId set, this changes nothing and notifies no one.
        reevaluate();
      }, report);
    },
    setContext(next: EvaluationContext | undefined): void {
      if (closed()) return;
      context = next ?? noContext();
      sessionTraits = (context.attributes ?? {}) as Traits;
      reevaluate();
    },
    async identify(userId: string, traits?: Record<string, JsonValue>): Promise<void> {
      if (closed()) return;
      const json = checkIdentify(userId, traits);
      if (json instanceof ConfigError) return report(json);
      if (traits) sessionTraits = json;
      // Without traits, the same user keeps the attributes, merged overlay included.
      context = { ...context, userId, attributes: traits || userId !== context.userId ? sessionTraits : context.attributes };
      events?.push({ type: 'identify', userId, traits: json });
      reevaluate();
      if (options.remoteTraits === false) return;
      // No request while offline: the overlay is fetched when the device is back.
      overlayDue = parts.offline() ? userId : undefined;
      if (!overlayDue) await fetchOverlay(userId);
    },
    /** Back online: fetches the overlay of a user identified while offline. */
    online(): void {
      if (overlayDue) void fetchOverlay(overlayDue);
      overlayDue = undefined;
    },
  };
}

/**
 * `identify`'s arguments checked: the traits as the identify event sends them (the server
 * takes 100 at most; the context holds the same, so a Date is evaluated as the ISO string it
 * is sent as), or the `ConfigError` that says what is wrong.
 */
function checkIdentify(userId: unknown, traits: unknown): Traits | ConfigError {
  let json: unknown;
  let problem = isId(userId) ? '' : `a userId of 1 to 256 characters, got ${isString(userId) ? `${userId.length} characters` : typeof userId}`;
  try {
    json = JSON.parse(JSON.stringify(traits ?? {}));
  } catch (cause) {
    problem ||= `traits that are a JSON object (${(cause as Error).message})`;
  }
  if (!problem && !(isRecord(json) && Object.keys(json).length <= 100)) problem = 'traits that are a JSON object of at most 100 members';
  return problem ? new ConfigError(`identify needs ${problem}`) : (json as Traits);
}

export type Identity = ReturnType<typeof createIdentity>;
