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

const planRule = (plan: string, variation: number): Flag['rules'][number] => ({
  id: `plan-${plan}`,
  conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: [plan] }],
  serve: { variation },
});

/** `banner` depends on `attributes.plan`; `a`, `b`, `c` serve the same value to everyone. */
export function snapshotV(version: number, values: { a?: JsonValue; b?: JsonValue; c?: JsonValue } = {}): FlagSnapshot {
  return {
    schemaVersion: 1,
    version,
    environmentId: 'production',
    flags: {
      a: servingFlag(values.a ?? 'a1'),
      b: servingFlag(values.b ?? 'b1'),
      c: servingFlag(values.c ?? 'c1'),
      banner: { ...servingFlag('everyone'), variations: ['everyone', 'pro'], fallthrough: { variation: 0 }, rules: [planRule('pro', 1)] },
    },
  };
}
