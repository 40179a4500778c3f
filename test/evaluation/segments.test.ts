import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import { bad, flagWith, matches } from './flags';

const inSegments = (segmentIds: string[], negate?: boolean) =>
  flagWith(negate === undefined ? { kind: 'segment', segmentIds } : { kind: 'segment', segmentIds, negate });

const matched = (flag: ReturnType<typeof flagWith>, context: EvaluationContext) => {
  const result = evaluateFlag(flag, context, 'u');
  expect(result.kind).toBe('served');
  return result.kind === 'served' && result.reason === 'TARGETING_MATCH';
};

describe('segment conditions', () => {
  it('match when the context is in one of the listed segments', () => {
    expect(matched(inSegments(['beta']), { segmentIds: ['beta'] })).toBe(true);
    expect(matched(inSegments(['beta', 'staff']), { segmentIds: ['staff', 'eu'] })).toBe(true);
  });

  it('do not match when the context is in none of them', () => {
    expect(matched(inSegments(['beta']), { segmentIds: ['staff'] })).toBe(false);
    expect(matched(inSegments(['beta']), { segmentIds: [] })).toBe(false);
    expect(matched(inSegments(['beta']), { segmentIds: ['Beta'] })).toBe(false); // exact ids
    expect(matched(inSegments([]), { segmentIds: ['beta'] })).toBe(false);
  });

  it('negate inverts membership', () => {
    expect(matched(inSegments(['beta'], true), { segmentIds: ['beta'] })).toBe(false);
    expect(matched(inSegments(['beta'], true), { segmentIds: ['staff'] })).toBe(true);
    expect(matched(inSegments(['beta'], false), { segmentIds: ['beta'] })).toBe(true);
  });

  it('missing or malformed context.segmentIds means no membership (then negate inverts)', () => {
    for (const context of [{}, { segmentIds: undefined }, bad<EvaluationContext>({ segmentIds: 'beta' }), bad<EvaluationContext>({ segmentIds: null })]) {
      expect(matched(inSegments(['beta']), context)).toBe(false);
      expect(matched(inSegments(['beta'], true), context)).toBe(true);
    }
  });

  it('ignore attributes of the same name', () => {
    expect(matched(inSegments(['beta']), { attributes: { segmentIds: ['beta'], beta: true } })).toBe(false);
  });

  it('a segment condition without a segmentIds array makes the flag malformed', () => {
    expect(evaluateFlag(flagWith(bad({ kind: 'segment' })), { segmentIds: ['beta'] }, 'u')).toEqual({
      kind: 'error',
      errorCode: 'PARSE_ERROR',
    });
  });
});

describe('segment conditions compare ids by exact string equality', () => {
  // Was a bug: conditions.ts uses Array.prototype.includes, so non-string ids of the same
  // value (numbers, null, booleans) on both sides match each other.
  // docs/evaluation.md: "Holds when `context.segmentIds` contains any of the listed ids
  // (exact string equality)." and "entries of `values` or `segmentIds` of an unexpected
  // type simply never match".
  it('a non-string entry of segmentIds never matches, even the same value in the context', () => {
    for (const id of [1, null, true, 0]) {
      expect(matches({ kind: 'segment', segmentIds: [id] }, { segmentIds: [id] })).toBe(false);
    }
  });

  it('an empty segmentIds list holds for no context, so negated it holds for every context', () => {
    for (const context of [{}, { segmentIds: [] }, { segmentIds: ['beta'] }]) {
      expect(matches({ kind: 'segment', segmentIds: [] }, context)).toBe(false);
      expect(matches({ kind: 'segment', segmentIds: [], negate: true }, context)).toBe(true);
    }
  });

  it('a string id never matches a number of the same spelling, either way', () => {
    expect(matches({ kind: 'segment', segmentIds: ['1'] }, { segmentIds: [1] })).toBe(false);
    expect(matches({ kind: 'segment', segmentIds: [1] }, { segmentIds: ['1'] })).toBe(false);
  });
});
