import type { JsonValue } from './snapshot-types';

/** Structural equality of two JSON values. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) =>
    Object.prototype.hasOwnProperty.call(b, key) &&
    jsonEqual((a as Record<string, JsonValue>)[key], (b as Record<string, JsonValue>)[key]),
  );
}
