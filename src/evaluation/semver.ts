import { memo } from './memo';

// Linear-time by construction: every repetition is delimited by a character its class
// excludes, so no input can make it backtrack. Numeric core ids carry no leading zero
// (semver.org); a leading `v` is tolerated, as node-semver does.
const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([\dA-Za-z-]+(?:\.[\dA-Za-z-]+)*))?(?:\+[\dA-Za-z-]+(?:\.[\dA-Za-z-]+)*)?$/;
const NUMERIC = /^\d+$/;

/**
 * The identifiers to compare, `[major, minor, patch, ...prerelease]`, or `undefined`
 * when `x` is not a semantic version string. A release gets the prerelease `~`, which
 * outranks every real identifier (all are [0-9A-Za-z-], below `~` in ASCII), so one
 * walk yields semver.org's "1.0.0-rc.1 < 1.0.0".
 */
export const parseSemver = (x: unknown): string[] | undefined =>
  typeof x === 'string' ? parseString(x) : undefined;

const parseString = memo((x: string): string[] | undefined => {
  const m = SEMVER.exec(x);
  // Numeric prerelease ids carry no leading zero either.
  if (!m || /(^|\.)0\d+(\.|$)/.test(m[4] ?? '')) return undefined;
  return [m[1]!, m[2]!, m[3]!, ...(m[4] ? m[4].split('.') : ['~'])];
});

// Numeric identifiers rank below alphanumeric ones and compare as numbers; without
// leading zeros a longer digit string is larger, which stays exact at any size.
function compareIdentifier(a: string, b: string): number {
  if (a === b) return 0; // the common case, without the two regex tests
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an !== bn) return an ? -1 : 1;
  return (an && a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Sign of the precedence of `a` against `b` (semver.org 2.0 §11; build metadata
 * ignored), or NaN when either is not a valid semantic version string.
 */
export function compareSemver(a: unknown, b: unknown): number {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (!x || !y) return NaN;
  for (let i = 0; i < x.length && i < y.length; i++) {
    const c = compareIdentifier(x[i]!, y[i]!);
    if (c) return c;
  }
  return x.length - y.length;
}
