/**
 * Freezes `value` and every object inside it, in place, and returns it. Children go first,
 * so an object found frozen is taken as frozen through and skipped: freezing again costs one
 * `Object.isFrozen`. Never throws: what cannot be frozen (a value nested deeper than the
 * stack, an object that refuses) stays as it is.
 */
export function deepFreeze<T>(value: T): T {
  try {
    if (value && typeof value == 'object' && !Object.isFrozen(value)) {
      for (const member of Object.values(value)) deepFreeze(member);
      Object.freeze(value);
    }
  } catch {
    // Reads never throw, and createClient throws only for its options.
  }
  return value;
}
