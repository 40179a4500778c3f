import type { Flag } from '../snapshot-types';
import { isObject } from './guards';
import { BUCKET_COUNT } from './bucketing';

// Flags arrive as JSON from the network, so every check here reads `unknown`.

/** An integer index into the flag's (already checked) `variations` array. */
const isIndex = (flag: Flag, i: unknown): boolean => Number.isInteger(i) && (i as number) in flag.variations;

function isServe(flag: Flag, s: unknown): boolean {
  if (!isObject(s)) return false;
  const { variation, rollout } = s;
  if (rollout === undefined) return isIndex(flag, variation);
  if (variation !== undefined || !Array.isArray(rollout)) return false;
  let sum = 0;
  for (const slice of rollout) {
    const w = isObject(slice) && isIndex(flag, slice.variation) ? slice.weight : -1;
    if (!Number.isInteger(w) || (w as number) < 0) return false;
    sum += w as number;
  }
  return sum === BUCKET_COUNT;
}

// A condition of an unknown kind or op passes: it is evaluated as false, not rejected
// (forward compatibility). Known kinds must have their members' types right.
const isCondition = (c: unknown): boolean =>
  isObject(c) &&
  (c.negate === undefined || typeof c.negate === 'boolean') &&
  (c.kind === 'segment'
    ? Array.isArray(c.segmentIds)
    : c.kind !== 'attribute' ||
      (typeof c.attribute === 'string' && (c.values === undefined || Array.isArray(c.values))));

const isRule = (flag: Flag, r: unknown): boolean =>
  isObject(r) &&
  typeof r.id === 'string' &&
  Array.isArray(r.conditions) &&
  r.conditions.every(isCondition) &&
  isServe(flag, r.serve);

/**
 * Whether `flag` can be evaluated. An off flag needs only `on`, `variations` and an
 * `offVariation` inside them, so turning off a flag whose targeting is broken still
 * works as a kill switch. An on flag also needs `salt`, every rule and the fallthrough,
 * all checked before any rule runs: a broken rule fails the flag for every context,
 * not only for those who reach it.
 */
export const isValidFlag = (flag: unknown): flag is Flag =>
  isObject(flag) &&
  typeof flag.on === 'boolean' &&
  Array.isArray(flag.variations) &&
  isIndex(flag as unknown as Flag, flag.offVariation) &&
  (!flag.on ||
    (typeof flag.salt === 'string' &&
      Array.isArray(flag.rules) &&
      flag.rules.every((r) => isRule(flag as unknown as Flag, r)) &&
      isServe(flag as unknown as Flag, flag.fallthrough)));
