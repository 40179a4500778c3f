import type { Flag, FlagSnapshot, JsonValue } from '../src/snapshot/snapshot-types';

/**
 * A flag that serves `value` to everyone: on, one variation, no rules. The evaluator
 * reports it with reason `DEFAULT` and variation 0.
 */
export const constantFlag = (key: string, value: JsonValue): Flag => ({
  on: true,
  variations: [value],
  offVariation: 0,
  rules: [],
  fallthrough: { variation: 0 },
  salt: key,
  clientSide: true,
});

/** The snapshot a test client starts from: version 1 of environment `test`, one constant flag per value. */
export function snapshotOfValues(values: Record<string, JsonValue>): FlagSnapshot {
  // Built from entries: a key such as `__proto__` stays an own flag.
  const flags = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, constantFlag(key, value)]));
  return { schemaVersion: 1, version: 1, environmentId: 'test', flags };
}

/** `snapshot` with the flag `key` replaced (or added) by a constant flag; its version stays. */
export const withConstantFlag = (snapshot: FlagSnapshot, key: string, value: JsonValue): FlagSnapshot => ({
  ...snapshot,
  flags: { ...snapshot.flags, [key]: constantFlag(key, value) },
});
