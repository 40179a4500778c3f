import { listen, stopAll } from './listen';

/**
 * Where the client learns whether the network is reachable. Replace it to drive the
 * client from another signal (React Native NetInfo, a test).
 */
export interface OnlineSource {
  /** Whether the device is online now; `true` when unknown. */
  isOnline(): boolean;
  /** Calls `onChange` with the new state on each change; returns the unsubscribe function. */
  subscribe(onChange: (online: boolean) => void): () => void;
}

/**
 * Online state from `navigator.onLine` and the `online` / `offline` events on `globalThis`,
 * both looked up at call time. Only an explicit `navigator.onLine === false` counts as
 * offline: servers and React Native (no `navigator.onLine`) are online, and `subscribe`
 * is a no-op where `globalThis` has no `addEventListener`.
 */
export function browserOnline(): OnlineSource {
  return {
    isOnline: () => (globalThis as { navigator?: Navigator }).navigator?.onLine !== false,
    subscribe: (onChange) =>
      stopAll(
        listen(globalThis, 'online', () => onChange(true)),
        listen(globalThis, 'offline', () => onChange(false)),
      ),
  };
}
