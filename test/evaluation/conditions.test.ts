import { describe, expect, it } from 'vitest';
import { bad, flagWith, matches, served } from './flags';

describe('operator names are matched exactly', () => {
  // Was a bug: conditions.ts checks `own(OPERATORS, op)` and reads `OPERATORS[op]`, both of
  // which convert `op` to a string, so `"op": ["exists"]` (valid JSON) runs `exists`.
  // docs/evaluation.md: "an attribute condition whose `op` is not one of the fourteen
  // above, is **false** — and stays false under `negate`. The flag is not malformed"
  // and "Operator names are matched exactly and only against the evaluator's own table".
  it('an op that is an array holding an operator name is unknown: false, even negated', () => {
    // Negated `exists` on an absent attribute would be true; an unknown op must stay false.
    expect(served(flagWith(bad({ kind: 'attribute', attribute: 'a', op: ['exists'], negate: true })), { attributes: {} })).toEqual({
      kind: 'served',
      value: 'fallthrough',
      variation: 0,
      reason: 'DEFAULT',
    });
    expect(served(flagWith(bad({ kind: 'attribute', attribute: 'a', op: ['in'], values: ['x'] })), { attributes: { a: 'x' } })).toMatchObject({
      reason: 'DEFAULT',
    });
  });

  it('an op that is not a string at all (number, null, object) is unknown: false, even negated', () => {
    for (const op of [1, null, {}, true]) {
      for (const negate of [false, true]) {
        expect(matches({ kind: 'attribute', attribute: 'a', op, values: ['x'], negate }, { attributes: { a: 'x' } })).toBe(false);
      }
    }
  });
});

describe('attributes that are not a JSON object', () => {
  // Was a bug (minor): conditions.ts accepts any non-null object as `attributes`, arrays
  // included, so an array's own `length` and indexes become attributes.
  // protocol.md §2: EvaluationContext `attributes` is an object; docs/evaluation.md: "a
  // missing or non-object `attributes` ... are all read as 'nothing there'".
  it('an array in place of attributes has no attributes: not even `length` or `0`', () => {
    expect(matches({ kind: 'attribute', attribute: 'length', op: 'exists' }, { attributes: [] })).toBe(false);
    expect(matches({ kind: 'attribute', attribute: '0', op: 'in', values: ['x'] }, { attributes: ['x'] })).toBe(false);
  });
});

describe('numbers at the edges', () => {
  it('NaN is a number for which every comparison is false (negate then inverts)', () => {
    for (const op of ['in', 'lt', 'lte', 'gt', 'gte']) {
      expect(matches({ kind: 'attribute', attribute: 'n', op, values: [0, 1, -1] }, { attributes: { n: NaN } })).toBe(false);
      expect(matches({ kind: 'attribute', attribute: 'n', op, values: [0], negate: true }, { attributes: { n: NaN } })).toBe(true);
    }
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'exists' }, { attributes: { n: NaN } })).toBe(true);
  });

  it('Infinity compares as a number; -0 is `===` 0 for `in`', () => {
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'gt', values: [1e308] }, { attributes: { n: Infinity } })).toBe(true);
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'lt', values: [-1e308] }, { attributes: { n: -Infinity } })).toBe(true);
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'in', values: [0] }, { attributes: { n: -0 } })).toBe(true);
  });

  it('non-finite numbers are not dates, on either side', () => {
    for (const n of [NaN, Infinity, -Infinity]) {
      expect(matches({ kind: 'attribute', attribute: 'd', op: 'before', values: ['2024-01-01'] }, { attributes: { d: n } })).toBe(false);
      expect(matches({ kind: 'attribute', attribute: 'd', op: 'after', values: ['2024-01-01'] }, { attributes: { d: n } })).toBe(false);
    }
  });
});

describe('strings: code units, case-sensitive, no normalisation', () => {
  it('composed and decomposed forms are different strings', () => {
    const composed = 'caf\u00e9';
    const decomposed = 'cafe\u0301';
    expect(matches({ kind: 'attribute', attribute: 's', op: 'in', values: [composed] }, { attributes: { s: decomposed } })).toBe(false);
    expect(matches({ kind: 'attribute', attribute: 's', op: 'endsWith', values: ['\u00e9'] }, { attributes: { s: decomposed } })).toBe(false);
    expect(matches({ kind: 'attribute', attribute: 's', op: 'startsWith', values: ['cafe'] }, { attributes: { s: decomposed } })).toBe(true);
  });

  it('no case folding, including the non-ASCII cases that toLowerCase/localeCompare would fold', () => {
    for (const [attr, value] of [['STRASSE', 'straße'], ['İstanbul', 'istanbul'], ['ΣΑΣ', 'σας'], ['ǅ', 'ǆ']]) {
      expect(matches({ kind: 'attribute', attribute: 's', op: 'in', values: [value] }, { attributes: { s: attr } })).toBe(false);
      expect(matches({ kind: 'attribute', attribute: 's', op: 'contains', values: [value] }, { attributes: { s: attr } })).toBe(false);
    }
  });

  it('a surrogate pair is two code units: half of it is a substring', () => {
    expect(matches({ kind: 'attribute', attribute: 's', op: 'startsWith', values: ['\ud83d'] }, { attributes: { s: '😀' } })).toBe(true);
    expect(matches({ kind: 'attribute', attribute: 's', op: 'in', values: ['\ud83d'] }, { attributes: { s: '😀' } })).toBe(false);
  });
});
