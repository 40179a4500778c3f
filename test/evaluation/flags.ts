import { expect } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import type { Condition, Flag, Rule, Serve } from '../../src/snapshot/snapshot-types';

/** A flag that is on, serves variation 0 ("fallthrough") by default, and has `rules`. */
export function makeFlag(rules: Rule[] = [], overrides: Partial<Flag> = {}): Flag {
  return {
    on: true,
    variations: ['fallthrough', 'rule-a', 'rule-b', 'off'],
    offVariation: 3,
    rules,
    fallthrough: { variation: 0 },
    salt: 'test-flag',
    clientSide: true,
    ...overrides,
  };
}

export const rule = (id: string, conditions: Condition[], serve: Serve = { variation: 1 }): Rule => ({
  id,
  conditions,
  serve,
});

/** A flag whose single rule `r` serves variation 1 when `condition` holds. */
export const flagWith = (condition: Condition): Flag => makeFlag([rule('r', [condition])]);

/** A deliberately malformed value, for flags typed `Flag` that are not. */
export const bad = <T>(value: unknown): T => value as T;

/** evaluateFlag on a flag and a context that may be malformed, bucketing by `key`. */
export const served = (flag: unknown, context: unknown, key: string | undefined = 'u') =>
  evaluateFlag(bad<Flag>(flag), bad<EvaluationContext>(context), key);

/** Whether the single rule of a flag holding `condition` matches (the flag must be well-formed). */
export function matches(condition: unknown, context: unknown): boolean {
  const result = served(flagWith(bad(condition)), context);
  expect(result.kind).toBe('served');
  return result.kind === 'served' && result.reason === 'TARGETING_MATCH';
}
