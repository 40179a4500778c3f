import type { EvaluationContext } from './evaluation-types';
import { isArray, isObject, isRecord, isString, own } from '../shared/guards';
import { OPERATORS } from './operators';
import { check } from './validate-flag';

/**
 * Checks one condition of a rule (throwing when it is malformed) and answers whether it
 * holds for `context` — against no context it is only checked. A missing attribute
 * (absent, `null` or `undefined`) or one of the wrong type makes the operator false
 * before `negate` applies. An unknown `kind` or `op` — from a newer schema — is not
 * malformed but false whatever `negate` says, so an old client never matches a rule it
 * cannot understand.
 */
export function matchCondition(c: unknown, context: EvaluationContext | undefined): boolean {
  check(isObject(c));
  const { kind, segmentIds, attribute, op, values = [], negate } = c;
  check(negate === undefined || typeof negate === 'boolean');
  let hit: boolean;
  if (kind === 'segment') {
    check(isArray(segmentIds));
    const ids: unknown = context?.segmentIds;
    hit = isArray(ids) && segmentIds.some((id) => isString(id) && ids.includes(id));
  } else if (kind === 'attribute') {
    check(isString(attribute) && isArray(values));
    if (!isString(op) || !own(OPERATORS, op)) return false;
    const attrs: unknown = context?.attributes;
    const a = isRecord(attrs) && own(attrs, attribute) ? attrs[attribute] : null;
    hit = a != null && (op === 'exists' || values.some((v) => OPERATORS[op]!(a, v)));
  } else {
    return false;
  }
  return hit !== !!negate;
}
