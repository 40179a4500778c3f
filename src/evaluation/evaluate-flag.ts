import type { Flag, Rule } from '../snapshot/snapshot-types';
import type { EvaluationContext, FlagEvaluation } from './evaluation-types';
import { deepFreeze } from '../shared/deep-freeze';
import { isArray, isNumber, isString } from '../shared/guards';
import { bucketFor, pickVariation } from './bucketing';
import { matchCondition } from './conditions';
import { check, checkServe, isUint, type Unchecked } from './validate-flag';

type ServedReason = Extract<FlagEvaluation, { kind: 'served' }>['reason'];

/**
 * Evaluates one flag of a snapshot for `context`. Pure: no I/O, no timers, and it never
 * throws — a malformed flag yields `{ kind: 'error', errorCode: 'PARSE_ERROR' }`.
 *
 * An off flag needs only `on`, `variations` and an `offVariation` inside them, so
 * turning off a flag whose targeting is broken still works as a kill switch. An on flag
 * has every rule and the fallthrough checked, even past the rule that matched: a broken
 * rule fails the flag for every context, not only for those who reach it.
 *
 * The one change it makes: the variation it serves is deeply frozen, in the flag itself, the first time it is
 * served: whoever holds the value cannot change what a later evaluation serves. Served
 * again, it costs one `Object.isFrozen`.
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
    const { on, variations, offVariation, rules, fallthrough, salt } = flag as Unchecked<Flag>;
    check(typeof on === 'boolean' && isArray(variations));
    const index = (i: unknown): number => {
      check(isUint(i) && i in variations);
      return i;
    };
    let variation = index(offVariation);
    let reason: ServedReason = 'DISABLED';
    let matched: Unchecked<Rule> | undefined;
    if (on) {
      check(isString(salt) && isArray(rules));
      let serve = checkServe(fallthrough, index);
      for (const rule of rules as Unchecked<Rule>[]) {
        check(isString(rule.id) && isArray(rule.conditions));
        const ruleServe = checkServe(rule.serve, index);
        // Every condition is checked. Once one failed, or an earlier rule matched, the
        // rest are checked only (against no context).
        let hit = !matched;
        for (const c of rule.conditions as unknown[]) hit = matchCondition(c, hit ? context : undefined) && hit;
        if (hit) {
          matched = rule;
          serve = ruleServe;
        }
      }
      if (isNumber(serve)) {
        variation = serve;
        reason = matched ? 'TARGETING_MATCH' : 'DEFAULT';
      } else {
        variation = pickVariation(serve, bucketFor(salt, bucketingKey))!;
        reason = 'SPLIT';
      }
    }
    // `variationKeys` is optional and only read: a flag with malformed keys still serves, keyless.
    const keys: unknown = flag.variationKeys;
    const variationKey: unknown = isArray(keys) && keys[variation];
    return {
      kind: 'served',
      value: deepFreeze(variations[variation]!),
      variation,
      reason,
      ...(matched && { ruleId: matched.id as string }),
      ...(isString(variationKey) && variationKey && { variationKey }),
    };
  } catch {
    return { kind: 'error', errorCode: 'PARSE_ERROR' };
  }
}
