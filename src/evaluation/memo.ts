/**
 * Caches a string parser. Snapshot values and a device's own attribute values repeat
 * across flags and evaluations, and parsing (a regex, then arithmetic) costs far more
 * than a Map lookup. Bounded: long strings are never kept, and the cache starts over
 * once it holds `limit` entries (with a new Map: `clear()` is several times slower).
 */
export function memo<T>(parse: (s: string) => T, limit = 500): (s: string) => T {
  let cache = new Map<string, T>();
  return (s) => {
    if (s.length > 64) return parse(s);
    if (!cache.has(s)) {
      if (cache.size >= limit) cache = new Map();
      cache.set(s, parse(s));
    }
    return cache.get(s)!;
  };
}
