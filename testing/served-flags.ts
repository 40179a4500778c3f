import type { FlagsClient } from '../src/client-types';
import type { EvaluationContext } from '../src/evaluation/evaluation-types';
import { createFlagValues, resolveRead } from '../src/reads/flag-values';
import { changedOverrides, type Overrides } from '../src/reads/overrides';
import type { FlagSnapshot, JsonValue } from '../src/snapshot/snapshot-types';

/**
 * What a test client serves: every flag of one snapshot evaluated under one context, with
 * the overrides on top. Each change answers with the keys whose outcome changed.
 */
export function createServedFlags(snapshot: FlagSnapshot, context: EvaluationContext, overrides: Overrides = new Map()) {
  // No anonymous id: without a userId, rollouts serve their first slice of non-zero weight.
  const values = createFlagValues({ snapshot, context, bucketingKey: context.userId });
  // Every flag is read from the start, so a change notifies its key whether or not the
  // test read it first (the real client notifies only the flags read so far).
  for (const key of values.readAll()) values.entry(key);
  let all: Readonly<Record<string, JsonValue>> | null = null;

  const details = (key: string, fallback?: JsonValue) => {
    const override = overrides.get(key);
    return resolveRead(key, override ?? values.entry(key).details, override ?? snapshot, fallback);
  };
  /** After a change: `getAll()` builds a new object only if a flag changed. */
  const changed = (keys: Set<string>): Set<string> => {
    if (keys.size > 0) all = null;
    return keys;
  };

  return {
    get: ((key: string, fallback?: JsonValue) => details(key, fallback).value) as FlagsClient['get'],
    getDetails: details as FlagsClient['getDetails'],
    getAll(): Readonly<Record<string, JsonValue>> {
      // Built from entries: a flag named `__proto__` stays a key, never the prototype. Frozen:
      // the next getAll() returns the same object.
      return (all ??= Object.freeze(
        Object.fromEntries(
          [...new Set([...values.readAll(), ...overrides.keys()])]
            .map((key) => [key, details(key).value])
            .filter(([, value]) => value !== undefined),
        ),
      ));
    },
    /** Serves `next` under `nextContext`; the keys whose outcome changed. */
    update(next: FlagSnapshot, nextContext: EvaluationContext): Set<string> {
      snapshot = next;
      return changed(values.update({ snapshot, context: nextContext, bucketingKey: nextContext.userId }));
    },
    /** Replaces the overrides; the keys whose override was added, removed or changed. */
    setOverrides(next: Overrides): Set<string> {
      const keys = changedOverrides(overrides, next);
      overrides = next;
      return changed(keys);
    },
    /** What is served now, as `forContext` reads it. */
    scope: {
      get snapshot() {
        return snapshot;
      },
      get overrides() {
        return overrides;
      },
    },
  };
}
