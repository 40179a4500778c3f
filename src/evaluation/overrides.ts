import type { EvaluationDetails } from './evaluation-types';
import type { JsonValue } from '../snapshot/snapshot-types';

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
export { changedKeys as changedOverrides } from './flag-values';
