import type { Flag, Serve, WeightedVariation } from '../snapshot-types';
import type { EvaluationContext, FlagEvaluation } from '../evaluation-types';
import { isObject } from './guards';
import { bucketFor, pickVariation } from './bucketing';
import { matchCondition } from './conditions';
import { isValidFlag } from './validate-flag';

type ServedReason = Extract<FlagEvaluation, { kind: 'served' }>['reason'];

const parseError = (): FlagEvaluation => ({ kind: 'error', errorCode: 'PARSE_ERROR' });

function served(flag: Flag, variation: number, reason: ServedReason, ruleId?: string): FlagEvaluation {
  const result: FlagEvaluation = { kind: 'served', value: flag.variations[variation]!, variation, reason };
  if (ruleId !== undefined) result.ruleId = ruleId;
  return result;
}

function serve(flag: Flag, s: Serve, key: string | undefined, ruleId?: string): FlagEvaluation {
  // Read the way validate-flag.ts reads it: a serve with a `rollout` is a rollout.
  const { rollout, variation } = s as { rollout?: WeightedVariation[]; variation: number };
  return rollout
    ? // Validation made the weights sum to 100000, so a slice always covers the bucket.
      served(flag, pickVariation(rollout, bucketFor(flag.salt, key))!, 'SPLIT', ruleId)
    : served(flag, variation, ruleId === undefined ? 'DEFAULT' : 'TARGETING_MATCH', ruleId);
}

/**
 * Evaluates one flag of a snapshot for `context`. Pure: no I/O, no timers, and it never
 * throws — a malformed flag yields `{ kind: 'error', errorCode: 'PARSE_ERROR' }`.
 *
 * @param bucketingKey The context's `userId`, else the client's anonymous id; when
 *   `undefined`, rollouts serve their first slice of non-zero weight (bucket 0).
 */
export function evaluateFlag(
  flag: Flag,
  context: EvaluationContext,
  bucketingKey: string | undefined,
): FlagEvaluation {
  try {
    if (!isValidFlag(flag)) return parseError();
    if (!flag.on) return served(flag, flag.offVariation, 'DISABLED');
    const ctx: EvaluationContext = isObject(context) ? context : {};
    const rule = flag.rules.find((r) => r.conditions.every((c) => matchCondition(c, ctx)));
    return rule ? serve(flag, rule.serve, bucketingKey, rule.id) : serve(flag, flag.fallthrough, bucketingKey);
  } catch {
    return parseError();
  }
}
