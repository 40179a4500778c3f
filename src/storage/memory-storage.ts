import type { StorageAdapter } from './storage-types';

/** A synchronous in-memory {@link StorageAdapter}; its contents die with the process. */
export function createMemoryStorage(initial?: Record<string, string>): StorageAdapter & { readonly entries: Map<string, string> } {
  const entries = new Map(Object.entries(initial ?? {}));
  return {
    entries,
    get: (key) => entries.get(key) ?? null,
    set: (key, value) => {
      entries.set(key, value);
    },
    remove: (key) => {
      entries.delete(key);
    },
  };
}
