import type { Condition } from '../snapshot-types';
import type { EvaluationContext } from '../evaluation-types';
import { isObject, own } from './guards';
import { OPERATORS } from './operators';

/**
 * Whether one (already validated) condition holds for `context`. A missing attribute
 * or one of the wrong type makes the operator false before `negate` applies. An
 * unknown `kind` or `op` — from a newer schema — is false whatever `negate` says, so
 * an old client never matches a rule it cannot understand.
 */
export function matchCondition(c: Condition, context: EvaluationContext): boolean {
  let hit: boolean;
  if (c.kind === 'segment') {
    const ids: unknown = context.segmentIds;
    hit = Array.isArray(ids) && c.segmentIds.some((id) => ids.includes(id));
  } else if (c.kind === 'attribute' && (c.op === 'exists' || own(OPERATORS, c.op))) {
    const attrs: unknown = context.attributes;
    const a = isObject(attrs) && own(attrs, c.attribute) ? attrs[c.attribute] : undefined;
    const op = OPERATORS[c.op]!;
    hit = c.op === 'exists' ? a != null : (c.values ?? []).some((v) => op(a, v));
  } else {
    return false;
  }
  return hit !== (c.negate === true);
}
