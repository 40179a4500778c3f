/** Types of large-environment.mjs, for the tests that import it. */
import type { FlagSnapshot } from '../src/snapshot/snapshot-types';

/** The key of flag `i`: `exp-00042-checkout`. */
export function largeFlagKey(i: number): string;
/** One experiment flag of five rules (country `in` rules, 50/50 rollouts); client-side for even `i`. */
export function largeFlag(i: number): FlagSnapshot['flags'][string];
/** A schema-1 snapshot (version 1) of `flagCount` flags, 10,000 of them 10.9 MiB of JSON. */
export function largeSnapshot(flagCount: number, environmentId?: string): FlagSnapshot;
