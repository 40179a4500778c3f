import type { EvaluationDetails } from '../evaluation/evaluation-types';
import type { JsonValue } from '../snapshot/snapshot-types';
import { deepFreeze } from '../shared/deep-freeze';
import { ConfigError } from '../shared/errors';
import { isRecord } from '../shared/guards';
import { changedKeys } from './flag-values';

/**
 * Local overrides for QA and tests: each key's details, built once so reads stay stable, and
 * deeply frozen with the app's value inside: every reader, of the client and of its views,
 * is served these same objects.
 */
export type Overrides = ReadonlyMap<string, EvaluationDetails>;

export function buildOverrides(values: Record<string, JsonValue>): Overrides {
  const overrides = new Map<string, EvaluationDetails>();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) overrides.set(key, deepFreeze({ key, value, reason: 'OVERRIDE', variation: null, version: null }));
  }
  return overrides;
}

/**
 * `changedOverrides(previous, next)`: keys whose override was added, removed or changed.
 * Values compare by identity: passing a new object, even an equal one, notifies its readers.
 */
export const changedOverrides = changedKeys;

/**
 * `setOverrides`' argument as overrides; `undefined`, reported as a `ConfigError`, for a
 * value that is neither an object nor `null`/`undefined` (which clear them).
 */
export function overridesOf(values: unknown, report: (error: ConfigError) => void): Overrides | undefined {
  if (values == null || isRecord(values)) return buildOverrides((values ?? {}) as Record<string, JsonValue>);
  report(new ConfigError('setOverrides needs an object of flag values'));
}
