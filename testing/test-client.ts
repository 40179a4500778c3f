import type { ChangeEvent, FlagsClient } from '../src/client-types';
import type { FlagplaneError } from '../src/shared/errors';
import { createErrorChannel, guardOnError } from '../src/shared/error-channel';
import type { EvaluationContext } from '../src/evaluation/evaluation-types';
import { noContext } from '../src/reads/flag-values';
import { overridesOf } from '../src/reads/overrides';
import { createReads } from '../src/reads/reads';
import { viewSources } from '../src/reads/view-sources';
import type { ClientStatus, ReadyResult } from '../src/machine/client-state';
import type { FlagDefaults } from '../src/options';
import type { KnownFlagKey } from '../src/reads/flags-view';
import { createSubscribable } from '../src/shared/subscribable';
import { checkSnapshot } from '../src/snapshot/snapshot-parse';
import type { FlagSnapshot, JsonValue } from '../src/snapshot/snapshot-types';
import { snapshotOfValues, withConstantFlag } from './constant-flags';
import { createServedFlags } from './served-flags';

/** The flag types of a test client: each value's type widened (`true` → `boolean`, `'dark'` → `string`). */
export type WidenedFlags<F extends FlagDefaults> = {
  -readonly [K in keyof F]: F[K] extends boolean ? boolean : F[K] extends string ? string : F[K] extends number ? number : F[K];
};

/** Options of {@link createTestClient}. */
export interface TestClientOptions<F extends Partial<FlagDefaults>> {
  /**
   * The flags, key → value. Each is served to every context as a flag of snapshot version
   * 1 with reason `DEFAULT` and variation 0. They also type the client's reads.
   */
  flags: F;
  /**
   * The evaluation context.
   * @default { userId: undefined, attributes: {}, segmentIds: [] }
   */
  context?: EvaluationContext | undefined;
  /** A subscribe listener that threw (code `listener`), or `setOverrides` given a non-object (a `ConfigError`). */
  onError?: ((error: FlagplaneError) => void) | undefined;
}

/**
 * A `FlagsClient` whose flags the test sets. No network, no storage, no timers, no events.
 * `TestClient<Flags, never>` is typed by a flags type, as `createClient<Flags>`'s client is.
 */
export interface TestClient<D extends FlagDefaults = FlagDefaults, Other extends string = string> extends FlagsClient<D, Other> {
  /**
   * Serves `value` for `key` to every context (reason `DEFAULT`, variation 0), in place of
   * what the flag served before; a key the client did not have is added. Subscribers hear
   * of it as of a real change, and a value equal to the one served notifies no one. The
   * snapshot version stays, so the details of every other flag keep their identity.
   */
  set<K extends KnownFlagKey<D> | Other>(key: K, value: K extends keyof D ? D[K] : JsonValue): void;
  /**
   * Serves a schema-1 snapshot in place of every flag (whatever its version): its rules are
   * evaluated under the client's context, as a real client would. Throws a `SchemaError`
   * for a value that is not a snapshot envelope, as the mistake of the test it is.
   */
  setSnapshot(snapshot: FlagSnapshot): void;
}

/**
 * Some of the flags of `T`, each a value of its type. Mapped over `KnownFlagKey<T>`, not
 * `keyof T`: a mapped type over `keyof T` would have `T` inferred from the flags given.
 */
export type SomeFlags<T extends FlagDefaults> = { [K in KnownFlagKey<T>]?: T[K] };

/**
 * The test client `createTestClient<T, F>` makes: typed by the flags type `T` when one is
 * given (its `flags` then a part of `T`), else by its `flags`, widened.
 */
export type TestClientOf<T extends FlagDefaults, F extends FlagDefaults> = string extends keyof T ? TestClient<WidenedFlags<F>> : TestClient<T, never>;

/**
 * Creates a flags client for tests, serving `flags` at once: `ready()` resolves with source
 * `bootstrap`, and nothing is fetched, stored, scheduled or sent. Change flags with `set`
 * and `setSnapshot`; the rest behaves as `createClient`'s client, and reads never throw.
 * `createTestClient<Flags>({ flags })` types it by a flags type, as `createClient<Flags>`:
 * `flags` then serves some of its keys, each a value of its type.
 */
export function createTestClient<T extends FlagDefaults = FlagDefaults, F extends FlagDefaults = T>(
  options: TestClientOptions<string extends keyof T ? F : SomeFlags<T>>,
): TestClientOf<T, F> {
  let context = options.context ?? noContext();
  let snapshot = snapshotOfValues(options.flags as FlagDefaults);
  const served = createServedFlags(snapshot, context);
  let status: ClientStatus = { status: 'ready', connection: 'polling', source: 'bootstrap', version: snapshot.version, error: null };
  const ready = Promise.resolve<ReadyResult>({ status: 'ready', source: 'bootstrap' });
  // The client's own error channel, without an event buffer: a test client records no events.
  const { report, threw } = createErrorChannel(guardOnError(options.onError), null);
  const listeners = createSubscribable<ChangeEvent>((cause) => threw('a subscribe listener', cause));
  // After close() every change is ignored, so no two readers can disagree (as createClient).
  const closed = () => status.connection === 'stopped';

  /** Takes `nextStatus`, and tells the listeners if it or a flag changed. */
  function notify(changed: ReadonlySet<string>, nextStatus = status): void {
    const statusChanged = nextStatus !== status;
    status = nextStatus;
    if (changed.size > 0 || statusChanged) listeners.emit({ changed, status });
  }
  /** Serves `next` snapshot under `nextContext`, and tells the listeners what changed. */
  function serve(next: FlagSnapshot, nextContext: EvaluationContext): void {
    if (closed()) return;
    snapshot = next;
    context = nextContext;
    notify(served.update(snapshot, context), snapshot.version === status.version ? status : { ...status, version: snapshot.version });
  }

  const client: TestClient = {
    ready: () => ready,
    get: served.get,
    getDetails: served.getDetails,
    getAll: served.getAll,
    getStatus: () => status,
    getContext: () => context,
    setContext: (next) => serve(snapshot, next ?? noContext()),
    async identify(userId, traits) {
      // Without traits, the user keeps the attributes; no identify event, no overlay request.
      serve(snapshot, { ...context, userId, attributes: traits ?? context.attributes });
    },
    setOverrides(values) {
      const next = closed() ? undefined : overridesOf(values, report);
      if (next) notify(served.setOverrides(next));
    },
    set: (key, value) => serve(withConstantFlag(snapshot, key, value), context),
    setSnapshot(next) {
      const checked = checkSnapshot(next, 'setSnapshot');
      if (checked.kind === 'invalid') throw checked.error;
      serve(checked.snapshot, context);
    },
    flush: async () => undefined,
    refresh: async () => undefined,
    subscribe: listeners.subscribe,
    async close() {
      if (closed()) return;
      notify(new Set(), { ...status, connection: 'stopped' });
      listeners.clear();
    },
  };
  // forContext(client, context): without a userId, a view buckets as the client does.
  viewSources.set(client, {
    scope: served.scope,
    identity: { bucketingKeyOf: (viewContext) => viewContext.userId! },
    readsFor: createReads(Object.create(null), null),
  });
  return client as unknown as TestClientOf<T, F>;
}
