import type { EvaluationContext, FlagEvaluation } from './evaluation-types';
import type { Flag } from './snapshot-types';

/** Off → off variation; on → the fallthrough's fixed variation. Rules come with the evaluator. */
export function evaluateFlag(flag: Flag, _context: EvaluationContext, _bucketingKey: string | undefined): FlagEvaluation {
  const fixed = flag.fallthrough && 'variation' in flag.fallthrough ? flag.fallthrough.variation : undefined;
  const variation = flag.on ? fixed : flag.offVariation;
  if (variation === undefined || !Array.isArray(flag.variations) || !(variation in flag.variations)) {
    return { kind: 'error', errorCode: 'PARSE_ERROR' };
  }
  return { kind: 'served', value: flag.variations[variation]!, variation, reason: flag.on ? 'DEFAULT' : 'DISABLED' };
}
