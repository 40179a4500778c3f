import type { EvaluationContext } from '../evaluation/evaluation-types';
import type { EventSender } from '../events/event-sender';
import type { ConfigError } from '../shared/errors';
import { deepFreeze } from '../shared/deep-freeze';
import type { FlagSnapshot, JsonValue } from '../snapshot/snapshot-types';
import { createFlagValues } from './flag-values';
import { changedOverrides, overridesOf } from './overrides';
import { createReads, type ReadScope } from './reads';

/** What a client's reads follow: its context and bucketing key (the identity), and the snapshot it holds (the machine). */
export interface ReadInput {
  identity: { context(): EvaluationContext; bucketingKey(): string };
  machine: { state(): { snapshot: FlagSnapshot | null } };
}

/**
 * A client's own reads: the flag values evaluated lazily for its context, the local
 * overrides on top, and the read path they share with `forContext`'s views. `emit` tells
 * the client's listeners of a change (`changed` may be empty when only the status changed).
 */
export function createClientReads(
  defaultValues: Partial<Record<string, JsonValue>> | undefined,
  events: Pick<EventSender, 'track'> | null,
  input: ReadInput,
  report: (error: ConfigError) => void,
  emit: (changed: ReadonlySet<string>) => void,
) {
  // No prototype: a key such as `__proto__` or `toString` must not read Object.prototype.
  // Frozen through, the app's values in place: served to every reader, they are shared.
  const defaults: Record<string, JsonValue | undefined> = deepFreeze(Object.assign(Object.create(null), defaultValues));
  const readsFor = createReads(defaults, events);
  const { identity, machine } = input;
  const { snapshot } = machine.state();
  const user = identity.bucketingKey();
  const scope: ReadScope = { values: createFlagValues({ snapshot, context: identity.context(), bucketingKey: user }), overrides: new Map(), snapshot, user };
  const own = readsFor(scope);

  /** Tells the listeners what changed; `getAll()` builds a new object only if a flag did. */
  function notify(changed: ReadonlySet<string>, statusChanged?: boolean): void {
    if (changed.size > 0) own.changed();
    if (changed.size > 0 || statusChanged) emit(changed);
  }

  return {
    own,
    /** What the reads serve now: the snapshot, the overrides and the bucketing key. */
    scope,
    readsFor,
    notify,
    /** After a change of snapshot, context or bucketing key: the flags read so far are evaluated again. */
    reevaluate(statusChanged?: boolean): void {
      scope.snapshot = machine.state().snapshot;
      scope.user = identity.bucketingKey();
      notify(scope.values.update({ snapshot: scope.snapshot, context: identity.context(), bucketingKey: scope.user }), statusChanged);
    },
    /** Replaces the overrides; notifies the keys whose override was added, removed or changed. */
    setOverrides(values: unknown): void {
      const next = overridesOf(values, report);
      if (!next) return;
      const changed = changedOverrides(scope.overrides, next);
      scope.overrides = next;
      notify(changed);
    },
  };
}

export type ClientReads = ReturnType<typeof createClientReads>;
