/**
 * How deep a stored JSON value may nest. An explicit bound, not the engine's stack: Node 26's
 * `JSON.stringify` no longer overflows where `structuredClone` still does, so "what the stack
 * can copy" differs by runtime. Far beyond any flag variation or trait a person writes.
 */
export const MAX_JSON_DEPTH = 1000;

/** Whether `value` nests deeper than `limit` levels (a scalar is 1 level), walked without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (depth > limit) return true;
    if (typeof current === 'object' && current !== null) for (const member of Object.values(current)) pending.push([member, depth + 1]);
  }
  return false;
}
