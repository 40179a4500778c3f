import { describe, expect, it } from 'vitest';
import { memo } from '../../src/evaluation/memo';

describe('memo', () => {
  const counting = () => {
    const calls: string[] = [];
    const parse = memo((s: string) => (calls.push(s), s.length), 3);
    return { calls, parse };
  };

  it('parses a string once, then answers from the cache', () => {
    const { calls, parse } = counting();
    expect([parse('ab'), parse('ab'), parse('abc')]).toEqual([2, 2, 3]);
    expect(calls).toEqual(['ab', 'abc']);
  });

  it('starts over when full, and stays correct', () => {
    const { calls, parse } = counting();
    for (const s of ['a', 'b', 'c', 'd', 'a']) parse(s);
    expect(calls).toEqual(['a', 'b', 'c', 'd', 'a']); // 'a' was dropped with the full cache
    expect(parse('d')).toBe(1);
    expect(calls).toHaveLength(5);
  });

  it('never keeps long strings', () => {
    const { calls, parse } = counting();
    const long = 'x'.repeat(65);
    expect(parse(long)).toBe(65);
    expect(parse(long)).toBe(65);
    expect(calls).toHaveLength(2);
  });

  it('caches undefined results too', () => {
    const calls: string[] = [];
    const parse = memo((s: string) => (calls.push(s), undefined));
    parse('bad');
    parse('bad');
    expect(calls).toEqual(['bad']);
  });
});
