/**
 * Replaces a property of `globalThis` (value or getter) and returns the function that puts
 * the original back, so a test can simulate a missing or throwing browser global.
 */
export function overrideGlobal(name: string, descriptor: PropertyDescriptor): () => void {
  const original = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { configurable: true, ...descriptor });
  return () => {
    if (original) Object.defineProperty(globalThis, name, original);
    else delete (globalThis as Record<string, unknown>)[name];
  };
}

/** A `Storage`-shaped object over a Map, whose methods a test can replace. */
export function mapStorage(entries = new Map<string, string>()) {
  return {
    entries,
    getItem: (key: string) => entries.get(key) ?? null,
    setItem: (key: string, value: string) => void entries.set(key, String(value)),
    removeItem: (key: string) => void entries.delete(key),
  };
}
