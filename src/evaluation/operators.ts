import { compareSemver } from './semver';
import { isNumber, isString } from '../shared/guards';
import { toEpochMs } from './dates';

/** Tests a present attribute value against one entry of a condition's `values`. */
export type Operator = (attribute: unknown, value: unknown) => boolean;

// Both sides must have the operator's type: a numeric string such as "42" is a
// string, never coerced to a number.
const numbers =
  (f: (a: number, v: number) => boolean): Operator =>
  (a, v) =>
    isNumber(a) && isNumber(v) && f(a, v);

const strings =
  (method: 'includes' | 'startsWith' | 'endsWith'): Operator =>
  (a, v) =>
    isString(a) && isString(v) && a[method](v);

/** `gt` is `lt` with its sides swapped. */
const swapped =
  (op: Operator): Operator =>
  (a, v) =>
    op(v, a);

// Semver and date helpers return NaN for invalid input, and NaN compares false either way.
const lt = numbers((a, v) => a < v);
const lte = numbers((a, v) => a <= v);
const semverLt: Operator = (a, v) => compareSemver(a, v) < 0;
const before: Operator = (a, v) => toEpochMs(a) < toEpochMs(v);

/**
 * Every operator of schema 1. Look names up with `own()`: this is a plain object.
 * conditions.ts has already made every operator false for an absent attribute; that is
 * all `exists` needs, so it ignores `values`.
 */
export const OPERATORS: Record<string, Operator> = {
  exists: () => true,
  in: (a, v) => a === v && (isString(a) || isNumber(a)),
  // Booleans only: `in` leaves them out, so a rule written for `is` never matches a string "true".
  is: (a, v) => a === v && typeof a == 'boolean',
  contains: strings('includes'),
  startsWith: strings('startsWith'),
  endsWith: strings('endsWith'),
  lt,
  lte,
  gt: swapped(lt),
  gte: swapped(lte),
  semverEq: (a, v) => compareSemver(a, v) === 0,
  semverLt,
  semverGt: swapped(semverLt),
  before,
  after: swapped(before),
};
