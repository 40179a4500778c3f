import type { EvaluationDetails } from '../evaluation/evaluation-types';
import type { JsonValue } from '../snapshot/snapshot-types';
import { ConfigError } from '../shared/errors';
import { isRecord } from '../shared/guards';
import { changedKeys } from './flag-values';

/** Local overrides for QA and tests: each key's details, built once so reads stay stable. */
export type Overrides = ReadonlyMap<string, EvaluationDetails>;

export function buildOverrides(values: Record<string, JsonValue>): Overrides {
  const overrides = new Map<string, EvaluationDetails>();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) overrides.set(key, { key, value, reason: 'OVERRIDE', variation: null, version: null });
  }
  return overrides;
}

/**
 * `changedOverrides(previous, next)`: keys whose override was added, removed or changed.
 * Values compare by identity: passing a new object, even an equal one, notifies its readers.
 */
export const changedOverrides = changedKeys;

/**
 * The local overrides a client serves, and `setOverrides`' check: a value that is neither an
 * object nor `null`/`undefined` is reported as a `ConfigError` and changes nothing.
 */
export function createOverrides(report: (error: ConfigError) => void) {
  let current: Overrides = new Map();
  return {
    current: () => current,
    /** Replaces the overrides with `values`; the keys whose override was added, removed or changed. */
    set(values: unknown): Set<string> {
      if (values != null && !isRecord(values)) {
        report(new ConfigError('setOverrides needs an object of flag values'));
        return new Set();
      }
      const next = buildOverrides((values ?? {}) as Record<string, JsonValue>);
      const changed = changedOverrides(current, next);
      current = next;
      return changed;
    },
  };
}
