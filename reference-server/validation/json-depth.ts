/**
 * How deep a stored JSON value may nest. An explicit bound, not the engine's stack: Node 26's
 * `JSON.stringify` no longer overflows where `structuredClone` still does, so "what the stack
 * can copy" differs by runtime. Far beyond any flag variation or trait a person writes.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * Whether `value` nests deeper than `limit` levels (a scalar is 1 level). Recursive, but never
 * more than `limit` + 1 calls deep, whatever the value's depth: it stops at the limit.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const deeper = (current: unknown, depth: number): boolean => {
    if (depth > limit) return true;
    if (typeof current !== 'object' || current === null) return false;
    if (Array.isArray(current)) {
      for (const item of current) if (deeper(item, depth + 1)) return true;
      return false;
    }
    for (const key in current) if (Object.hasOwn(current, key) && deeper((current as Record<string, unknown>)[key], depth + 1)) return true;
    return false;
  };
  return deeper(value, 1);
}
