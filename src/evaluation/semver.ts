import { memo } from './memo';
import { isString } from '../shared/guards';

// Linear-time by construction: every repetition is delimited by a character its class
// excludes, so no input can make it backtrack. Identifiers are [0-9A-Za-z-]: `[\w-]`
// once the lookahead has ruled out `_`. A leading `v` is tolerated, as node-semver does.
const SEMVER = /^(?!.*_)v?(\d+)\.(\d+)\.(\d+)(?:-([\w-]+(?:\.[\w-]+)*))?(?:\+[\w-]+(?:\.[\w-]+)*)?$/;
const NUMERIC = /^\d*$/;

/**
 * The identifiers to compare, `[major, minor, patch, ...prerelease]`, or `undefined`
 * when `x` is not a semantic version string. A release gets the prerelease `~`, which
 * outranks every real identifier (all are [0-9A-Za-z-], below `~` in ASCII), so one
 * walk yields semver.org's "1.0.0-rc.1 < 1.0.0".
 */
export const parseSemver = memo((x: string): string[] | undefined => {
  const m = SEMVER.exec(x);
  const ids = m && [m[1]!, m[2]!, m[3]!, ...(m[4]?.split('.') ?? ['~'])];
  // Numeric identifiers carry no leading zero (semver.org); build metadata is not read.
  return ids && !ids.some((id) => /^0\d+$/.test(id)) ? ids : undefined;
});

// Numeric identifiers rank below alphanumeric ones (Infinity - Infinity is NaN, which
// falls through to ASCII order); without leading zeros a longer digit string is larger,
// which stays exact at any size. A missing identifier (the shorter list ran out) is
// read as "" and ranks below both.
const rank = (id = ''): number => (NUMERIC.test(id) ? id.length : Infinity);

/**
 * Sign of the precedence of `a` against `b` (semver.org 2.0 §11; build metadata
 * ignored), or NaN when either is not a valid semantic version string.
 */
export function compareSemver(a: unknown, b: unknown): number {
  const x = isString(a) && parseSemver(a);
  const y = isString(b) && parseSemver(b);
  if (!x || !y) return NaN;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  const p = x[i];
  const q = y[i];
  return p === q ? 0 : rank(p) - rank(q) || (p! < q! ? -1 : 1);
}
