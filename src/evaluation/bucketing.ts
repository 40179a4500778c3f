import type { WeightedVariation } from '../snapshot/snapshot-types';
import { murmur3 } from './murmur3';
import { isString } from '../shared/guards';

/** Rollout weights and buckets are out of this many (0.001 % resolution). */
export const BUCKET_COUNT = 100000;

/**
 * The bucket (0…99999) of `key` for a flag's `salt`: murmur3(`${salt}.${key}`) mod 100000.
 * Without a key (`undefined`) the bucket is 0, so a rollout serves its first slice of
 * non-zero weight: every keyless context gets the same, predictable variation.
 */
export const bucketFor = (salt: string, key: string | undefined): number =>
  isString(key) ? murmur3(`${salt}.${key}`) % BUCKET_COUNT : 0;

/**
 * The variation of the first slice whose cumulative weight exceeds `bucket`, or
 * `undefined` when the weights do not reach it (a malformed rollout).
 */
export function pickVariation(rollout: WeightedVariation[], bucket: number): number | undefined {
  let sum = 0;
  for (const slice of rollout) if ((sum += slice.weight) > bucket) return slice.variation;
  return undefined;
}
