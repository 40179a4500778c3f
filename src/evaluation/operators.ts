import { compareSemver } from './semver';
import { toEpochMs } from './dates';

/** Tests an attribute value against one entry of a condition's `values`. */
export type Operator = (attribute: unknown, value: unknown) => boolean;

// Both sides must have the operator's type: a numeric string such as "42" is a
// string, never coerced to a number.
const typed =
  <T>(type: 'string' | 'number', f: (a: T, v: T) => boolean): Operator =>
  (a, v) =>
    typeof a === type && typeof v === type && f(a as T, v as T);

/**
 * Every operator that compares against `values` (`exists` takes none and lives in
 * conditions.ts). Look names up with `own()`: this is a plain object. Semver and date
 * helpers return NaN for invalid input, and NaN compares false either way.
 */
export const OPERATORS: Record<string, Operator> = {
  in: (a, v) => a === v && (typeof a === 'string' || typeof a === 'number'),
  contains: typed('string', (a: string, v: string) => a.includes(v)),
  startsWith: typed('string', (a: string, v: string) => a.startsWith(v)),
  endsWith: typed('string', (a: string, v: string) => a.endsWith(v)),
  lt: typed('number', (a: number, v: number) => a < v),
  lte: typed('number', (a: number, v: number) => a <= v),
  gt: typed('number', (a: number, v: number) => a > v),
  gte: typed('number', (a: number, v: number) => a >= v),
  semverEq: (a, v) => compareSemver(a, v) === 0,
  semverLt: (a, v) => compareSemver(a, v) < 0,
  semverGt: (a, v) => compareSemver(a, v) > 0,
  before: (a, v) => toEpochMs(a) < toEpochMs(v),
  after: (a, v) => toEpochMs(a) > toEpochMs(v),
};
