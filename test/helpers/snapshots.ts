import type { Flag, FlagSnapshot, JsonValue } from '../../src/snapshot/snapshot-types';

/** A flag that is on and serves `value` to everyone (fallthrough variation 1). */
export function servingFlag(value: JsonValue, extra: Partial<Flag> = {}): Flag {
  return {
    on: true,
    variations: [null, value],
    offVariation: 0,
    rules: [],
    fallthrough: { variation: 1 },
    salt: 'salt',
    clientSide: true,
    ...extra,
  };
}

/** A schema-1 snapshot whose flags serve the given values. */
export function snapshotOf(version: number, values: Record<string, JsonValue>, environmentId = 'production'): FlagSnapshot {
  const flags: Record<string, Flag> = {};
  for (const [key, value] of Object.entries(values)) flags[key] = servingFlag(value);
  return { schemaVersion: 1, version, environmentId, flags };
}
