import type { WeightedVariation } from '../snapshot/snapshot-types';
import { isArray } from '../shared/guards';
import { BUCKET_COUNT } from './bucketing';

// Flags arrive as JSON from the network, so the evaluator checks each member where it
// reads it, before using it.

/** A part of a flag before it is checked: any member may be missing or of any type. */
export type Unchecked<T> = { [K in keyof T]?: unknown };

/**
 * Throws at the first malformed member of a flag; evaluateFlag catches it and answers
 * PARSE_ERROR. Reading a member of `null` or `undefined` throws a TypeError, which is a
 * PARSE_ERROR just the same, so a part is only checked to be an object where a
 * primitive would otherwise pass (a condition).
 */
export function check(ok: boolean): asserts ok {
  if (!ok) throw new Error('malformed flag');
}

/** `x >>> 0` equals `x` only for a number that is an integer from 0 to 2^32 - 1. */
export const isUint = (x: unknown): x is number => (x as number) >>> 0 === x;

/**
 * A checked serve: the index of its fixed variation, or its rollout, whose weights are
 * integers ≥ 0 summing to exactly 100000 (so a slice always covers a bucket). A serve
 * with a `rollout` is a rollout; it must not also name a `variation`.
 *
 * @param index Checks a variation index of the flag and returns it.
 */
export function checkServe(s: unknown, index: (i: unknown) => number): number | WeightedVariation[] {
  const { variation, rollout } = s as Unchecked<{ variation: number; rollout: WeightedVariation[] }>;
  if (rollout === undefined) return index(variation);
  check(variation === undefined && isArray(rollout));
  let sum = 0;
  for (const slice of rollout as Unchecked<WeightedVariation>[]) {
    check(isUint(slice.weight));
    index(slice.variation);
    sum += slice.weight;
  }
  check(sum === BUCKET_COUNT);
  return rollout as WeightedVariation[];
}
