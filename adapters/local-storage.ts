import type { StorageAdapter } from '../src/storage/storage-types';

/** The three `Storage` methods the adapter uses; `localStorage`, `sessionStorage` or a fake. */
export type WebStorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Options of {@link createLocalStorage}. */
export interface LocalStorageOptions {
  /**
   * The Web Storage to use.
   * @default globalThis.localStorage, looked up at first use (never at import)
   */
  storage?: WebStorageLike | undefined;
}

/** A synchronous {@link StorageAdapter}: the client reads it inside `createClient`. */
export interface LocalStorageAdapter extends StorageAdapter {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

/**
 * A synchronous {@link StorageAdapter} over `localStorage`, so the cached snapshot is
 * served before `createClient` returns.
 *
 * Every method throws when storage is unusable — no `localStorage` (server rendering,
 * workers), a getter that throws (`SecurityError` in sandboxed iframes or with cookies
 * blocked) — with an `Error` whose `cause` is the original failure; errors of the
 * Storage API itself (a `QuotaExceededError` `DOMException` on `set`, private-mode
 * failures) are rethrown unchanged. The client reports each as a `StorageError`.
 */
export function createLocalStorage(options: LocalStorageOptions = {}): LocalStorageAdapter {
  let storage = options.storage;
  // Looked up at first use: touching `localStorage` at import time breaks server
  // rendering, and merely reading the getter throws in sandboxed iframes.
  const resolve = (): WebStorageLike => {
    if (storage) return storage;
    let found: WebStorageLike | null | undefined;
    try {
      found = globalThis.localStorage;
    } catch (cause) {
      throw new Error(`localStorage is not available: ${(cause as Error)?.message ?? cause}`, { cause });
    }
    // Node 25 defines a stub without methods (unless --localstorage-file): no storage either.
    if (!found?.getItem) throw new Error('localStorage is not available in this environment');
    return (storage = found);
  };
  return {
    get: (key) => resolve().getItem(key),
    set: (key, value) => resolve().setItem(key, value),
    remove: (key) => resolve().removeItem(key),
  };
}
