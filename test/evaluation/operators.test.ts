import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { AttributeOperator, JsonValue } from '../../src/snapshot/snapshot-types';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import { bad, flagWith } from './flags';

const MISSING = Symbol('missing');
type Attr = JsonValue | typeof MISSING;
/** [attribute value, condition values, whether the operator holds] */
type Case = [Attr, Array<string | number | boolean> | undefined, boolean];

// Every operator of the schema must have a table; `satisfies` fails the typecheck
// when an operator is added to AttributeOperator without cases here.
const CASES = {
  in: [
    ['beta', ['alpha', 'beta'], true],
    ['gamma', ['alpha', 'beta'], false],
    [3, [1, 2, 3], true],
    [0, [0], true],
    ['3', [3], false], // no coercion either way
    [3, ['3'], false],
    ['Beta', ['beta'], false], // case-sensitive
    [true, ['true'], false], // wrong type
    [['beta'], ['beta'], false], // arrays are not searched
    ['beta', [], false],
    ['beta', undefined, false], // no values: nothing to match
  ],
  is: [
    [true, [true], true],
    [false, [false], true],
    [false, [true], false],
    [true, [false, true], true],
    ['true', [true], false], // no coercion: a string is not a boolean
    [1, [true], false],
    [0, [false], false],
    [true, ['true'], false],
    [[true], [true], false],
    [true, [], false],
    [true, undefined, false],
  ],
  contains: [
    ['hello world', ['wor'], true],
    ['hello world', ['xyz', 'lo w'], true],
    ['hello world', ['WOR'], false],
    ['hello', [''], true],
    [12345, ['234'], false],
    ['12345', [234], false],
    [{ text: 'hello' }, ['hello'], false],
  ],
  startsWith: [
    ['https://example.com', ['https:'], true],
    ['http://example.com', ['https:'], false],
    ['abc', ['abcd'], false],
    [123, ['1'], false],
    ['123', [1], false],
  ],
  endsWith: [
    ['ana@example.com', ['@example.com'], true],
    ['ana@example.com', ['@other.com', '.com'], true],
    ['ana@example.co', ['@example.com'], false],
    [['ana@example.com'], ['@example.com'], false],
  ],
  lt: [
    [5, [10], true],
    [10, [10], false],
    [11, [10], false],
    [-1.5, [0], true],
    [50, [10, 100], true], // any value
    ['5', [10], false], // a numeric string is not a number
    [5, ['10'], false],
    [false, [1], false],
  ],
  lte: [
    [10, [10], true],
    [9.99, [10], true],
    [10.01, [10], false],
    ['10', [10], false],
  ],
  gt: [
    [11, [10], true],
    [10, [10], false],
    [1e21, [1e20], true],
    ['11', [10], false],
    [null, [0], false],
  ],
  gte: [
    [10, [10], true],
    [9, [10], false],
    [10, ['9'], false],
    [[10], [9], false],
  ],
  semverEq: [
    ['1.2.3', ['1.2.3'], true],
    ['1.2.3+build.7', ['1.2.3+other'], true], // build metadata ignored
    ['v1.2.3', ['1.2.3'], true], // leading lowercase v tolerated
    ['1.2.3', ['v1.2.3'], true],
    ['V1.2.3', ['1.2.3'], false],
    ['1.2.3-rc.1', ['1.2.3'], false],
    ['1.2', ['1.2.0'], false], // incomplete: invalid
    ['01.2.3', ['1.2.3'], false], // leading zero: invalid
    ['1.2.3', ['not.a.version', '1.2.3'], true],
    [1.2, ['1.2.0'], false],
    ['1.2.3', [123], false],
  ],
  semverLt: [
    ['1.0.0-alpha', ['1.0.0'], true],
    ['1.0.0', ['1.0.0-alpha'], false],
    ['2.0.0', ['10.0.0'], true], // numeric, not lexical
    ['1.0.0', ['1.0.0'], false],
    ['1.0.0-alpha.01', ['1.0.0'], false], // leading zero in a numeric prerelease id: invalid
    ['latest', ['1.0.0'], false],
  ],
  semverGt: [
    ['1.10.0', ['1.9.0'], true],
    ['1.0.0', ['1.0.0-rc.1'], true],
    ['1.0.0-rc.11', ['1.0.0-rc.2'], true],
    ['1.0.0-beta', ['1.0.0-alpha.1'], true],
    ['1.0.0', ['1.0.0+build'], false],
    ['1.0.0-', ['0.0.1'], false], // empty prerelease: invalid
  ],
  before: [
    ['2024-01-01T00:00:00Z', ['2024-06-01T00:00:00Z'], true],
    ['2024-06-01T00:00:00Z', ['2024-01-01T00:00:00Z'], false],
    ['2024-01-01T00:00:00Z', ['2024-01-01T00:00:00Z'], false], // equal: neither before nor after
    [1700000000000, ['2024-01-01'], true], // epoch ms against a date
    ['2023-11-14T22:13:19.999Z', [1700000000000], true],
    ['2024-01-01T01:00:00+02:00', ['2024-01-01T00:00:00Z'], true], // 2023-12-31T23:00Z
    ['2024-01-01T00:00:00.5Z', ['2024-01-01T00:00:00.501Z'], true], // fraction of one digit
    ['2024-01-01T00:00:00', ['2025-01-01T00:00:00Z'], false], // no offset: rejected
    ['2024-02-30', ['2025-01-01'], false], // not a real day
    ['yesterday', ['2025-01-01'], false],
    ['1700000000000', ['2025-01-01'], false], // a numeric string is not epoch ms
    [true, ['2025-01-01'], false],
  ],
  after: [
    ['2024-06-01', ['2024-01-01'], true],
    ['2024-02-29T12:00:00-05:00', ['2024-02-29T16:59:59Z'], true], // 17:00Z
    [1717200000000, [1717199999999], true],
    ['2024-01-01T00:00Z', ['2023-12-31'], true], // seconds optional
    ['2024-01-01T24:00:00Z', ['2023-01-01'], false], // hour 24 rejected
    ['2024-13-01', ['2023-01-01'], false],
    [{}, ['2023-01-01'], false],
  ],
  exists: [
    ['x', undefined, true],
    ['', undefined, true],
    [0, undefined, true],
    [false, undefined, true],
    [[], undefined, true],
    [null, undefined, false],
    [MISSING, undefined, false],
    ['x', ['ignored'], true],
  ],
} satisfies Record<AttributeOperator, Case[]>;

const ctx = (value: Attr): EvaluationContext =>
  value === MISSING ? { attributes: { other: 'x' } } : { attributes: { attr: value } };

function matches(op: string, value: Attr, values: Case[1], negate?: boolean): boolean {
  const condition = bad<Parameters<typeof flagWith>[0]>({ kind: 'attribute', attribute: 'attr', op, values, negate });
  const result = evaluateFlag(flagWith(condition), ctx(value), 'user-1');
  expect(result.kind).toBe('served');
  return result.kind === 'served' && result.reason === 'TARGETING_MATCH';
}

const show = (x: unknown) => (x === MISSING ? '(missing)' : JSON.stringify(x));

describe.each(Object.entries(CASES) as Array<[string, Case[]]>)('operator %s', (op, cases) => {
  it.each(cases.map(([v, values, want]) => [show(v), show(values), want, v, values] as const))(
    'attribute %s against %s → %s (negate inverts)',
    (_a, _b, want, value, values) => {
      expect(matches(op, value, values)).toBe(want);
      expect(matches(op, value, values, false)).toBe(want);
      expect(matches(op, value, values, true)).toBe(!want);
    },
  );

  it('a missing, null or undefined attribute is false, and true under negate', () => {
    const values = op === 'exists' ? undefined : cases[0]![1];
    for (const context of [{}, { attributes: {} }, { attributes: { attr: null } }, { attributes: { attr: undefined } }]) {
      const c = { kind: 'attribute', attribute: 'attr', op, values } as const;
      const plain = evaluateFlag(flagWith(bad(c)), context, 'k');
      const negated = evaluateFlag(flagWith(bad({ ...c, negate: true })), context, 'k');
      expect(plain).toMatchObject({ kind: 'served', reason: 'DEFAULT' });
      expect(negated).toMatchObject({ kind: 'served', reason: 'TARGETING_MATCH', ruleId: 'r' });
    }
  });
});

describe('unknown operators', () => {
  it.each(['matches', 'regex', 'IN', '', 'constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'op %j is false, negated or not',
    (op) => {
      expect(matches(op, 'x', ['x'])).toBe(false);
      expect(matches(op, 'x', ['x'], true)).toBe(false);
    },
  );
});
