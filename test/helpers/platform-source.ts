import type { OnlineSource, VisibilitySource } from '../../src/platform/index';

/**
 * A switchable online / visibility source, as the platform would drive it: `set()` changes the
 * value and tells every subscriber; `listeners` counts them (a leak shows there).
 */
export function switchableSource(initial: boolean) {
  let value = initial;
  const listeners = new Set<(value: boolean) => void>();
  const subscribe = (listener: (value: boolean) => void) => (listeners.add(listener), () => void listeners.delete(listener));
  return {
    set(next: boolean) {
      value = next;
      for (const listener of [...listeners]) listener(next);
    },
    get value() {
      return value;
    },
    listeners,
    online: { isOnline: () => value, subscribe } as OnlineSource,
    visibility: { isVisible: () => value, subscribe } as VisibilitySource,
  };
}
