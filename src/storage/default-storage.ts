import type { StorageAdapter } from './storage-types';

/**
 * The browser default when `persist` is on: `localStorage`, looked up when the client is
 * created (never at import). `undefined` outside browsers, or where touching it throws
 * (Safari private mode, sandboxed iframes): the client then runs from memory.
 */
export function browserStorage(): StorageAdapter | undefined {
  try {
    const storage = (globalThis as { localStorage?: Storage }).localStorage;
    // Node 25 defines a stub `localStorage` without methods (unless --localstorage-file).
    if (storage?.getItem) {
      return {
        get: (key) => storage.getItem(key),
        set: (key, value) => storage.setItem(key, value),
        remove: (key) => storage.removeItem(key),
      };
    }
  } catch {
    // Blocked: no default cache.
  }
}
