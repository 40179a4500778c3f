import type { Flag, JsonValue } from '../src/index';

/** A JSON value's kind: `typeof`, with `null` and arrays apart from objects (as the core's reads compare them). */
export type JsonKind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export const kindOf = (value: JsonValue): JsonKind =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as JsonKind);

/**
 * The kinds a flag serves: those of its variations. A `null` variation (an "off" that serves
 * nothing) does not count, so `[null, 'blue']` is a string flag; a flag of nulls alone, or
 * a key with no flag and no known fallback, takes any kind (an empty list).
 */
export function kindsOf(flag: Pick<Flag, 'variations'> | undefined): JsonKind[] {
  const kinds = new Set((flag?.variations ?? []).map(kindOf));
  kinds.delete('null');
  return [...kinds];
}

/** What an override typed into the panel parses to. */
export type ParsedOverride = { ok: true; value: JsonValue } | { ok: false; message: string };

/**
 * Parses `text` as JSON and checks it against `kinds` (empty: any kind). A value of another
 * kind would never be served: the core's reads serve the fallback instead (`TYPE_MISMATCH`).
 */
export function parseOverride(text: string, kinds: readonly JsonKind[]): ParsedOverride {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return { ok: false, message: `not JSON: ${text.trim() ? text : '(empty)'}` + (kinds.includes('string') ? ' (a string needs quotes)' : '') };
  }
  const kind = kindOf(value);
  if (kinds.length > 0 && !kinds.includes(kind)) return { ok: false, message: `${/^[ao]/.test(kind) ? 'an' : 'a'} ${kind}, but this flag serves ${kinds.join(' or ')}` };
  return { ok: true, value };
}
