/**
 * Freezes `value` and every object inside it, in place, and returns it. An object found
 * frozen is taken as frozen through and skipped, so freezing again costs one
 * `Object.isFrozen` (which is also true of a primitive). Never throws: what cannot be frozen
 * (the part of a value nested deeper than the stack, an object that refuses) stays as it is.
 */
export function deepFreeze<T>(value: T): T {
  try {
    if (!Object.isFrozen(value)) {
      Object.values(value as object).forEach(deepFreeze);
      Object.freeze(value);
    }
  } catch {
    // Reads never throw, and createClient throws only for its options.
  }
  return value;
}
