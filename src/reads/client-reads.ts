import type { EvaluationContext } from '../evaluation/evaluation-types';
import type { EventSender } from '../events/event-sender';
import type { ConfigError } from '../shared/errors';
import type { FlagSnapshot, JsonValue } from '../snapshot/snapshot-types';
import { createFlagValues } from './flag-values';
import { createOverrides } from './overrides';
import { createReads, type ReadScope } from './reads';

/** What a client's reads follow: its context and bucketing key, and the snapshot it holds. */
export interface ReadInput {
  context(): EvaluationContext;
  bucketingKey(): string;
  snapshot(): FlagSnapshot | null;
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
  const defaults: Record<string, JsonValue | undefined> = Object.assign(Object.create(null), defaultValues);
  const readsFor = createReads(defaults, events);
  const overrides = createOverrides(report);
  const snapshot = input.snapshot();
  const user = input.bucketingKey();
  const scope: ReadScope = { values: createFlagValues({ snapshot, context: input.context(), bucketingKey: user }), overrides: overrides.current(), snapshot, user };
  const own = readsFor(scope);

  /** Tells the listeners what changed; `getAll()` builds a new object only if a flag did. */
  function notify(changed: ReadonlySet<string>, statusChanged?: boolean): void {
    if (changed.size > 0) own.changed();
    if (changed.size > 0 || statusChanged) emit(changed);
  }

  return {
    own,
    readsFor,
    overrides,
    notify,
    /** After a change of snapshot, context or bucketing key: the flags read so far are evaluated again. */
    reevaluate(statusChanged?: boolean): void {
      scope.snapshot = input.snapshot();
      scope.user = input.bucketingKey();
      notify(scope.values.update({ snapshot: scope.snapshot, context: input.context(), bucketingKey: scope.user }), statusChanged);
    },
    setOverrides(values: unknown): void {
      const changed = overrides.set(values);
      scope.overrides = overrides.current();
      notify(changed);
    },
  };
}

export type ClientReads = ReturnType<typeof createClientReads>;
