import type { EvaluationDetails } from './evaluation-types';
import type { JsonValue } from './snapshot-types';

/** Local overrides for QA and tests: each key's details, built once so reads stay stable. */
export type Overrides = ReadonlyMap<string, EvaluationDetails>;

export function buildOverrides(values: Record<string, JsonValue>): Overrides {
  const overrides = new Map<string, EvaluationDetails>();
  for (const key of Object.keys(values)) {
    const value = values[key];
    if (value !== undefined) overrides.set(key, { key, value, reason: 'OVERRIDE', variation: null, version: null });
  }
  return overrides;
}

/** Keys whose override was added, removed or changed. */
export function changedOverrides(previous: Overrides, next: Overrides): Set<string> {
  const changed = new Set<string>();
  for (const [key, details] of next) if (previous.get(key)?.value !== details.value) changed.add(key);
  for (const key of previous.keys()) if (!next.has(key)) changed.add(key);
  return changed;
}
