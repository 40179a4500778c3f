import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../reference-server/validation/json-depth';

const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('nestsDeeperThan', () => {
  it('counts a scalar as one level and each array or object around it as one more', () => {
    expect(nestsDeeperThan(1, 1)).toBe(false);
    expect(nestsDeeperThan([1], 1)).toBe(true);
    expect(nestsDeeperThan({ a: { b: [1] } }, 4)).toBe(false);
    expect(nestsDeeperThan({ a: { b: [1] } }, 3)).toBe(true);
  });

  it('walks 100,000 levels without the stack', () => {
    expect(nestsDeeperThan(nested(100_000), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
  });
});
