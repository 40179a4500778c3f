import { expect } from 'vitest';
import type { JsonValue } from '../../src/snapshot/snapshot-types';

/** An object value with something to change at its top and deep inside. */
export interface Banner {
  [member: string]: JsonValue;
  title: string;
  layout: { columns: string[] };
}

/** A fresh banner value: each call a new object, equal to the last. */
export const banner = (title = 'Spring'): Banner => ({ title, layout: { columns: ['left', 'right'] } });

/**
 * Tries to change `served` at its top, deep inside and by deleting a member: test files are
 * modules, so in strict mode each assignment to a frozen object throws a TypeError. Returns
 * `served`, unchanged.
 */
export function expectUnchangeable(served: unknown): void {
  const value = served as Partial<Banner>;
  expect(() => {
    value.title = 'MUTATED';
  }).toThrow(TypeError);
  expect(() => value.layout!.columns.push('MUTATED')).toThrow(TypeError);
  expect(() => {
    value.layout!.columns[0] = 'MUTATED';
  }).toThrow(TypeError);
  expect(() => delete value.layout).toThrow(TypeError);
}
