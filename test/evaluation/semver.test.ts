import { describe, expect, it } from 'vitest';
import { compareSemver, parseSemver } from '../../src/evaluation/semver';

// semver.org 2.0 §11, in ascending order of precedence.
const ASCENDING = [
  '0.0.0',
  '0.0.1',
  '0.1.0',
  '0.9.99',
  '1.0.0-0',
  '1.0.0-1',
  '1.0.0-2',
  '1.0.0-10',
  '1.0.0-alpha',
  '1.0.0-alpha.1',
  '1.0.0-alpha.beta',
  '1.0.0-beta',
  '1.0.0-beta.2',
  '1.0.0-beta.11',
  '1.0.0-rc.1',
  '1.0.0',
  '1.0.1',
  '1.9.0',
  '1.10.0',
  '2.0.0',
  '2.1.0',
  '2.1.1',
  '10.0.0',
  '99999999999999999999.0.0', // beyond 2^53, still exact
  '100000000000000000000.0.0',
];

describe('compareSemver', () => {
  it('orders every pair of the precedence list', () => {
    for (let i = 0; i < ASCENDING.length; i++) {
      for (let j = 0; j < ASCENDING.length; j++) {
        const c = compareSemver(ASCENDING[i], ASCENDING[j]);
        expect(Math.sign(c), `${ASCENDING[i]} vs ${ASCENDING[j]}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('ignores build metadata', () => {
    expect(compareSemver('1.0.0+20130313144700', '1.0.0')).toBe(0);
    expect(compareSemver('1.0.0-beta+exp.sha.5114f85', '1.0.0-beta+other')).toBe(0);
    expect(compareSemver('1.0.0+001', '1.0.0')).toBe(0); // leading zeros are fine in build ids
  });

  it('tolerates one leading lowercase v on either side', () => {
    expect(compareSemver('v1.2.3', '1.2.3')).toBe(0);
    expect(compareSemver('1.2.3', 'v1.2.4')).toBeLessThan(0);
  });

  it('compares alphanumeric prerelease ids in ASCII order, numeric ids below them', () => {
    expect(compareSemver('1.0.0-Z', '1.0.0-a')).toBeLessThan(0);
    expect(compareSemver('1.0.0-a-b', '1.0.0-a')).toBeGreaterThan(0);
    expect(compareSemver('1.0.0-999', '1.0.0-a')).toBeLessThan(0);
    expect(compareSemver('1.0.0-1a', '1.0.0-2')).toBeGreaterThan(0); // 1a is alphanumeric
  });

  it.each([
    '',
    '1',
    '1.2',
    '1.2.3.4',
    'V1.2.3',
    'vv1.2.3',
    '=1.2.3',
    ' 1.2.3',
    '1.2.3 ',
    '01.2.3',
    '1.02.3',
    '1.2.03',
    '1.2.3-01',
    '1.2.3-alpha.01',
    '1.2.3-',
    '1.2.3-alpha..1',
    '1.2.3-alpha.',
    '1.2.3+',
    '1.2.3+build..1',
    '1.2.3-al_pha',
    '1.2.3-α',
    '-1.2.3',
    '1.2.x',
  ])('%j is invalid: NaN, so every semver operator is false', (v) => {
    expect(parseSemver(v)).toBeUndefined();
    expect(compareSemver(v, '1.2.3')).toBeNaN();
    expect(compareSemver('1.2.3', v)).toBeNaN();
  });

  it.each([123, null, undefined, {}, ['1.2.3'], true])('non-string %j is invalid', (v) => {
    expect(compareSemver(v, '1.2.3')).toBeNaN();
  });

  it('accepts 0 as a numeric identifier and hyphens inside ids', () => {
    expect(parseSemver('0.0.0-0.x-y-z.--')).toEqual(['0', '0', '0', '0', 'x-y-z', '--']);
  });

  it('stays fast on a huge almost-valid string (the pattern cannot backtrack)', () => {
    const huge = `1.2.3-${'1'.repeat(1_000_000)}!`;
    const start = performance.now();
    expect(compareSemver(huge, '1.2.3')).toBeNaN();
    expect(performance.now() - start).toBeLessThan(500);
  });
});

describe('semver corners not in the precedence list', () => {
  it.each([
    ['1.0.0-alpha', '1.0.0-alpha.0', -1], // a longer list wins when shared ids are equal
    ['1.0.0-0a', '1.0.0-0', 1], // "0a" is alphanumeric (a leading zero is allowed there)
    ['1.0.0-alpha.beta', '1.0.0-alpha.1.2', 1], // alphanumeric beats numeric before length counts
    ['1.0.0--', '1.0.0-0', 1], // "-" is an alphanumeric identifier
    ['1.0.0-A', '1.0.0-a', -1], // ASCII order, uppercase first
    ['v1.0.0+x.y', '1.0.0', 0], // v-prefix plus build metadata
    ['1.0.0-rc.1+build.5', 'v1.0.0-rc.1', 0],
  ])('%s vs %s → %i', (a, b, sign) => {
    expect(Math.sign(compareSemver(a, b))).toBe(sign);
    expect(Math.sign(compareSemver(b, a))).toBe(-sign || 0);
  });

  it.each(['1.0.0-x.00', '00.0.0', '1.0.0+x_y', '1.2.3\n', '\n1.2.3', '1.0.0-\u0663', 'v 1.2.3', '1.2.3-rc.1\u0000'])('%j is invalid', (v) => {
    expect(compareSemver(v, '1.2.3')).toBeNaN();
  });
});
