import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/shared/deep-freeze';

describe('deepFreeze', () => {
  it('freezes every object inside, in place, and returns the value', () => {
    const value = { a: [{ b: { c: [1] } }], d: null, e: 'text' };
    expect(deepFreeze(value)).toBe(value);
    expect([value, value.a, value.a[0], value.a[0]!.b, value.a[0]!.b.c].every((object) => Object.isFrozen(object))).toBe(true);
    for (const primitive of [null, undefined, 0, '', true]) expect(deepFreeze(primitive)).toBe(primitive);
  });

  it('takes an object found frozen as frozen through, and never throws', () => {
    const inner = { mutable: true };
    const shallow = Object.freeze({ inner });
    deepFreeze(shallow);
    expect(Object.isFrozen(inner)).toBe(false);
    // Deeper than the stack: frozen as far as it goes, no RangeError.
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(deepFreeze(deep)).toBe(deep);
    // A typed array with elements refuses to be frozen.
    const bytes = { data: new Uint8Array(2) };
    expect(() => deepFreeze(bytes)).not.toThrow();
  });
});
