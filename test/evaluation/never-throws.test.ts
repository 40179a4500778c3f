import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { EvaluationContext, FlagEvaluation } from '../../src/evaluation/evaluation-types';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { bad, makeFlag, rule } from './flags';
import { createFlagValues } from '../../src/reads/flag-values';

const PARSE_ERROR = { kind: 'error', errorCode: 'PARSE_ERROR' };
const REASONS = ['DISABLED', 'TARGETING_MATCH', 'SPLIT', 'DEFAULT'];

/** A result of the right shape: an error with its code, or a served variation that exists. */
function expectWellFormed(result: FlagEvaluation, flag: unknown): void {
  if (result.kind === 'error') {
    expect(result).toEqual(PARSE_ERROR);
    return;
  }
  expect(result.kind).toBe('served');
  expect(REASONS).toContain(result.reason);
  const variations = (flag as Flag).variations;
  expect(Number.isInteger(result.variation) && result.variation >= 0 && result.variation < variations.length).toBe(true);
  expect(result.value).toBe(variations[result.variation]);
}

const attr = (op: string, values?: unknown[]) => ({ kind: 'attribute', attribute: 'a', op, values });
const base = makeFlag();

// [what is wrong, the flag]: each must be a PARSE_ERROR.
const MALFORMED: Array<[string, unknown]> = [
  ['null flag', null],
  ['undefined flag', undefined],
  ['a string', 'flag'],
  ['an array', []],
  ['empty object', {}],
  ['on missing', { ...base, on: undefined }],
  ['on as a string', { ...base, on: 'true' }],
  ['variations missing', { ...base, variations: undefined }],
  ['variations empty', { ...base, variations: [], offVariation: 0 }],
  ['variations an object', { ...base, variations: { 0: 'a', length: 1 } }],
  ['offVariation out of range', { ...base, offVariation: 4 }],
  ['offVariation negative', { ...base, offVariation: -1 }],
  ['offVariation not an integer', { ...base, offVariation: 0.5 }],
  ['offVariation a numeric string', { ...base, offVariation: '0' }],
  ['offVariation missing', { ...base, offVariation: undefined }],
  ['rules missing', { ...base, rules: undefined }],
  ['rules not an array', { ...base, rules: { 0: rule('r', []) } }],
  ['rules containing null', { ...base, rules: [null] }],
  ['rule without id', { ...base, rules: [{ conditions: [], serve: { variation: 1 } }] }],
  ['rule id a number', { ...base, rules: [{ id: 1, conditions: [], serve: { variation: 1 } }] }],
  ['rule without conditions', { ...base, rules: [{ id: 'r', serve: { variation: 1 } }] }],
  ['conditions not an array', { ...base, rules: [{ id: 'r', conditions: 'all', serve: { variation: 1 } }] }],
  ['condition null', { ...base, rules: [rule('r', [bad(null)])] }],
  ['condition a string', { ...base, rules: [rule('r', [bad('country=FR')])] }],
  ['attribute name missing', { ...base, rules: [rule('r', [bad({ kind: 'attribute', op: 'in', values: ['x'] })])] }],
  ['attribute name a number', { ...base, rules: [rule('r', [bad({ kind: 'attribute', attribute: 1, op: 'in', values: ['x'] })])] }],
  ['values a string', { ...base, rules: [rule('r', [bad({ kind: 'attribute', attribute: 'a', op: 'in', values: 'x' })])] }],
  ['values null', { ...base, rules: [rule('r', [bad({ kind: 'attribute', attribute: 'a', op: 'in', values: null })])] }],
  ['negate a string', { ...base, rules: [rule('r', [bad({ ...attr('exists'), negate: 'true' })])] }],
  ['segmentIds missing', { ...base, rules: [rule('r', [bad({ kind: 'segment' })])] }],
  ['rule serve missing', { ...base, rules: [{ id: 'r', conditions: [] }] }],
  ['rule serve variation out of range', { ...base, rules: [rule('r', [], { variation: 9 })] }],
  ['serve with both variation and rollout', { ...base, fallthrough: { variation: 0, rollout: [{ variation: 0, weight: 100000 }] } }],
  ['serve empty object', { ...base, fallthrough: {} }],
  ['fallthrough missing', { ...base, fallthrough: undefined }],
  ['fallthrough variation a float', { ...base, fallthrough: { variation: 1.5 } }],
  ['fallthrough variation NaN', { ...base, fallthrough: { variation: NaN } }],
  ['fallthrough variation Infinity', { ...base, fallthrough: { variation: Infinity } }],
  ['rollout empty', { ...base, fallthrough: { rollout: [] } }],
  ['rollout null', { ...base, fallthrough: { rollout: null } }],
  ['rollout not an array', { ...base, fallthrough: { rollout: { variation: 0, weight: 100000 } } }],
  ['rollout weights under 100000', { ...base, fallthrough: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 49999 }] } }],
  ['rollout weights over 100000', { ...base, fallthrough: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50001 }] } }],
  ['rollout negative weight (sum 100000)', { ...base, fallthrough: { rollout: [{ variation: 0, weight: -1 }, { variation: 1, weight: 100001 }] } }],
  ['rollout fractional weights', { ...base, fallthrough: { rollout: [{ variation: 0, weight: 50000.5 }, { variation: 1, weight: 49999.5 }] } }],
  ['rollout weight a string', { ...base, fallthrough: { rollout: [{ variation: 0, weight: '100000' }] } }],
  ['rollout slice variation out of range', { ...base, fallthrough: { rollout: [{ variation: 7, weight: 100000 }] } }],
  ['rollout slice null', { ...base, fallthrough: { rollout: [null] } }],
  ['rollout in a rule, broken', { ...base, rules: [rule('r', [], { rollout: [{ variation: 1, weight: 1 }] })] }],
  ['salt missing', { ...base, salt: undefined }],
  ['salt a number', { ...base, salt: 42 }],
  ['a broken rule after a matching one', { ...base, rules: [rule('ok', []), rule('broken', [], { variation: -1 })] }],
];

describe('evaluateFlag never throws', () => {
  it.each(MALFORMED)('%s → PARSE_ERROR', (_name, flag) => {
    for (const context of [{}, { attributes: { a: 'x' } }]) {
      expect(evaluateFlag(bad(flag), context, 'user-1')).toEqual(PARSE_ERROR);
    }
  });

  it('an off flag needs only a valid off path: broken targeting does not stop the kill switch', () => {
    const broken = { ...base, on: false, rules: 'nope', fallthrough: null, salt: 1 };
    expect(evaluateFlag(bad(broken), {}, 'u')).toEqual({ kind: 'served', reason: 'DISABLED', variation: 3, value: 'off' });
  });

  const ODD_BUT_VALID: Array<[string, Flag]> = [
    ['no rules', makeFlag([])],
    ['a rule without conditions', makeFlag([rule('r', [])])],
    ['unknown op', makeFlag([rule('r', [bad(attr('matchesRegex', ['.*']))])])],
    ['unknown kind', makeFlag([rule('r', [bad({ kind: 'geo', anything: [1, { deep: null }] })])])],
    ['values omitted for a comparing op', makeFlag([rule('r', [bad(attr('in'))])])],
    ['values of odd types', makeFlag([rule('r', [bad(attr('in', [null, {}, [], true, NaN]))])])],
    ['zero-weight slices', makeFlag([], { fallthrough: { rollout: [{ variation: 1, weight: 0 }, { variation: 0, weight: 100000 }] } })],
    ['a single variation', makeFlag([], { variations: [true], offVariation: 0, fallthrough: { variation: 0 } })],
    ['extra unknown members', bad<Flag>({ ...makeFlag([rule('r', [])]), futureField: { x: 1 } })],
  ];

  const HUGE = 'x'.repeat(1_000_000);
  const CONTEXTS: Array<[string, unknown]> = [
    ['{}', {}],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'context'],
    ['attributes missing', { userId: 'u' }],
    ['attributes null', { attributes: null }],
    ['attributes a string', { attributes: 'a=x' }],
    ['attributes an array', { attributes: ['x'] }],
    ['null attribute values', { attributes: { a: null } }],
    ['nested objects', { attributes: { a: { b: { c: [1, 2] } } } }],
    ['huge strings', { attributes: { a: HUGE }, segmentIds: [HUGE] }],
    ['segmentIds a string', { segmentIds: 'beta' }],
    ['attributes without prototype', { attributes: Object.assign(Object.create(null), { a: 'x' }) }],
  ];

  it.each(ODD_BUT_VALID)('%s serves a well-formed result in every odd context', (_name, flag) => {
    for (const [, context] of CONTEXTS) {
      for (const key of ['user-1', undefined, '', HUGE]) {
        const result = evaluateFlag(flag, bad<EvaluationContext>(context), key);
        expect(result.kind).toBe('served');
        expectWellFormed(result, flag);
      }
    }
  });

  it('every operator survives huge strings quickly', () => {
    const ops = ['in', 'contains', 'startsWith', 'endsWith', 'lt', 'semverEq', 'semverLt', 'semverGt', 'before', 'after', 'exists'];
    const tricky = [HUGE, `1.2.3-${'1'.repeat(500_000)}`, `${'9'.repeat(500_000)}-01-01`, `2024-01-01T00:00:00.${'1'.repeat(500_000)}Z`];
    const start = performance.now();
    for (const op of ops) {
      for (const value of tricky) {
        const flag = makeFlag([rule('r', [bad({ kind: 'attribute', attribute: 'a', op, values: [value, HUGE] })])]);
        expectWellFormed(evaluateFlag(flag, { attributes: { a: value } }, HUGE), flag);
      }
    }
    expect(performance.now() - start).toBeLessThan(2000);
  });

  it('a hostile context (throwing getter) still yields a result, not an exception', () => {
    const context = { get attributes(): never { throw new Error('boom'); } };
    const flag = makeFlag([rule('r', [bad(attr('exists'))])]);
    expect(() => evaluateFlag(flag, context, 'u')).not.toThrow();
    expectWellFormed(evaluateFlag(flag, context, 'u'), flag);
  });

  it('a deeply frozen flag evaluates normally (nothing is written to it)', () => {
    const flag = makeFlag([rule('r', [bad(attr('in', ['x']))])], {
      fallthrough: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] },
    });
    const deepFreeze = (o: unknown): void => {
      if (typeof o !== 'object' || o === null) return;
      Object.values(o).forEach(deepFreeze);
      Object.freeze(o);
    };
    deepFreeze(flag);
    expect(Object.isFrozen(flag.fallthrough)).toBe(true);
    expect(evaluateFlag(flag, { attributes: { a: 'x' } }, 'u')).toMatchObject({ reason: 'TARGETING_MATCH' });
    expect(evaluateFlag(flag, {}, 'u')).toMatchObject({ reason: 'SPLIT' });
  });
});

describe('prototype members are never attributes', () => {
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

  it.each(names)('%s does not "exist" on an empty attributes object', (name) => {
    const flag = makeFlag([rule('r', [{ kind: 'attribute', attribute: name, op: 'exists' }])]);
    expect(evaluateFlag(flag, { attributes: {} }, 'u')).toMatchObject({ reason: 'DEFAULT' });
    expect(evaluateFlag(flag, {}, 'u')).toMatchObject({ reason: 'DEFAULT' });
  });

  it.each(names)('%s is readable when it is an own attribute (from JSON)', (name) => {
    const attributes = JSON.parse(`{${JSON.stringify(name)}: "own"}`) as Record<string, string>;
    const flag = makeFlag([rule('r', [{ kind: 'attribute', attribute: name, op: 'in', values: ['own'] }])]);
    expect(evaluateFlag(flag, { attributes }, 'u')).toMatchObject({ reason: 'TARGETING_MATCH' });
  });

  it('startsWith "function" on toString / constructor never matches an inherited member', () => {
    for (const name of ['toString', 'constructor']) {
      const flag = makeFlag([rule('r', [{ kind: 'attribute', attribute: name, op: 'startsWith', values: ['function', ''] }])]);
      expect(evaluateFlag(flag, { attributes: { other: 1 } }, 'u')).toMatchObject({ reason: 'DEFAULT' });
    }
  });

  it('a negated condition on an inherited name treats it as missing', () => {
    const flag = makeFlag([rule('r', [{ kind: 'attribute', attribute: 'constructor', op: 'exists', negate: true }])]);
    expect(evaluateFlag(flag, { attributes: {} }, 'u')).toMatchObject({ reason: 'TARGETING_MATCH' });
  });
});

describe('the flag values (flag-values.ts) never throw, whatever the snapshot holds', () => {
  const deepSnapshot = (version: number, depth: number): FlagSnapshot => {
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    return JSON.parse(
      `{"schemaVersion":1,"version":${version},"environmentId":"e","flags":{"deep":{"on":true,"variations":[${deep}],"offVariation":0,"rules":[],"fallthrough":{"variation":0},"salt":"s","clientSide":true},"plain":{"on":true,"variations":[true],"offVariation":0,"rules":[],"fallthrough":{"variation":0},"salt":"s","clientSide":true}}}`,
    ) as FlagSnapshot;
  };

  it('evaluateFlag itself serves a deeply nested variation without walking it', () => {
    const snapshot = deepSnapshot(1, 100_000);
    expect(evaluateFlag(snapshot.flags.deep!, {}, 'u')).toMatchObject({ kind: 'served', reason: 'DEFAULT', variation: 0 });
  });

  // Was a bug: flag-values.ts shares deep-equal values with the recursive jsonEqual (json-equal.ts),
  // which overflows the stack on a deeply nested variation once a second snapshot arrives.
  // JSON.parse accepts such a body. protocol.md: evaluation never throws; docs/evaluation.md: "A malformed flag never throws and never affects
  // other flags."
  it('re-evaluating a snapshot with a deeply nested variation does not throw', () => {
    const values = createFlagValues({ snapshot: deepSnapshot(1, 20_000), context: {}, bucketingKey: 'u' });
    values.entry('plain').details;
    values.entry('deep').details;
    values.update({ snapshot: deepSnapshot(2, 20_000), context: {}, bucketingKey: 'u' });
    expect(values.entry('plain').details).toMatchObject({ value: true, version: 2 });
    expect(values.entry('deep').details).toMatchObject({ reason: 'DEFAULT', version: 2 });
  });

  it('huge arrays: 100,000 rules, values and slices evaluate normally', () => {
    const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const flag = makeFlag(
      [
        ...Array.from({ length: 100_000 }, (_, i) => ({ id: `r${i}`, conditions: [{ kind: 'attribute' as const, attribute: 'never', op: 'in' as const, values: ['x'] }], serve: { variation: 1 } })),
        { id: 'last', conditions: [{ kind: 'attribute', attribute: 'a', op: 'in', values }], serve: { rollout: Array.from({ length: 100_000 }, () => ({ variation: 2, weight: 1 })) } },
      ],
    );
    expect(evaluateFlag(flag, { attributes: { a: 'v99999' } }, 'u')).toMatchObject({ kind: 'served', reason: 'SPLIT', variation: 2, ruleId: 'last' });
  });
});

describe('a malformed flag costs only itself, through the flag values', () => {
  it('its details carry PARSE_ERROR with value and variation null; its neighbours, even "__proto__", are served', () => {
    // Built from JSON, so "__proto__" is an own key, as a snapshot body would have it.
    const flags = JSON.parse(
      JSON.stringify({
        broken: { ...makeFlag(), fallthrough: { variation: 99 } },
        offBroken: { ...makeFlag(), on: false, rules: 'nope' },
        proto: makeFlag(),
      }).replace('"proto"', '"__proto__"'),
    ) as Record<string, Flag>;
    const snapshot: FlagSnapshot = { schemaVersion: 1, version: 9, environmentId: 'e', flags };
    const out = createFlagValues({ snapshot, context: {}, bucketingKey: 'u' });
    expect(out.entry('broken').details).toEqual({ key: 'broken', value: null, reason: 'ERROR', variation: null, version: 9, errorCode: 'PARSE_ERROR' });
    expect(out.entry('offBroken').details).toMatchObject({ reason: 'DISABLED', value: 'off', variation: 3 });
    expect(out.entry('__proto__').details).toMatchObject({ reason: 'DEFAULT', value: 'fallthrough' });
  });
});
