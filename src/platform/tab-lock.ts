/**
 * A lock the tabs of one origin share: the shape of the Web Locks API's `LockManager`, of
 * which the client calls one form. A test passes a fake.
 */
export interface TabLock {
  /**
   * Runs `task` once this tab holds the lock named `name`, and keeps the lock until the promise
   * `task` returns settles; requests are granted in the order they were made. With
   * `ifAvailable`, `task` runs at once either way: given `null` (and holding nothing) when
   * another request holds the lock or waits for it. Rejects without running `task` when the
   * lock cannot be had at all (an opaque origin).
   */
  request(name: string, options: { ifAvailable?: boolean }, task: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

/**
 * The Web Locks API (`navigator.locks`), looked up when called, never at import; `undefined`
 * where it is missing (older browsers, Node 20, React Native). A tab closed while it holds a
 * lock loses it: the browser releases it.
 */
export const browserTabLock = (): TabLock | undefined => (globalThis as { navigator?: { locks?: TabLock } }).navigator?.locks;
