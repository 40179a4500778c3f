import type { FlagsClient } from 'flagplane';
import { mountDevtools, type Devtools } from 'flagplane/devtools';
import { countListeners } from '../../../helpers/listener-count';

/** What the devtools page (pages/devtools.tsx) lets a test see of the panel's footprint. */
export interface DevtoolsProbe {
  /** The panel the page mounted at load, or the test's latest. */
  devtools: Devtools;
  /** Mounts the panel again (after `devtools.unmount()`). */
  mount(): void;
  /** The client's subscribers that are still subscribed, counted from the page's start. */
  listeners(): number;
  /** Timers set since the page's start (setTimeout, setInterval, requestAnimationFrame) that have neither run nor been cleared. */
  liveTimers(): number;
  /** The client's `get`, `getDetails` and `setOverrides` as `createClient` made them. */
  originals: Pick<FlagsClient, 'get' | 'getDetails' | 'setOverrides'>;
}

declare global {
  interface Window {
    fpDevtools: DevtoolsProbe;
  }
}

/**
 * Counts live timers from now on: each id set and not yet run (timeouts, frames) or cleared.
 * Installed before the client exists, so the count covers everything the page sets.
 */
export function countLiveTimers(): () => number {
  const live = new Set<number>();
  const { setTimeout: later, clearTimeout: cancel, setInterval: every, clearInterval: stop, requestAnimationFrame: frame, cancelAnimationFrame: unframe } = window;
  window.setTimeout = ((handler: () => void, ms?: number, ...rest: unknown[]) => {
    const id: number = later(() => (live.delete(id), typeof handler === 'function' ? handler(...(rest as [])) : undefined), ms);
    live.add(id);
    return id;
  }) as typeof setTimeout;
  window.clearTimeout = ((id?: number) => (live.delete(id!), cancel(id))) as typeof clearTimeout;
  window.setInterval = ((handler: () => void, ms?: number) => {
    const id = every(handler, ms);
    live.add(id);
    return id;
  }) as typeof setInterval;
  window.clearInterval = ((id?: number) => (live.delete(id!), stop(id))) as typeof clearInterval;
  window.requestAnimationFrame = (callback) => {
    const id: number = frame((at) => (live.delete(-id), callback(at)));
    live.add(-id);
    return id;
  };
  window.cancelAnimationFrame = (id) => (live.delete(-id), unframe(id));
  return () => live.size;
}

/** Counts the client's live subscribers from now on (wrapping `subscribe`), then mounts the devtools. */
export function installDevtools(client: FlagsClient, liveTimers: () => number): DevtoolsProbe {
  const listeners = countListeners(client);
  // Taken before the mount, which wraps them.
  const originals = { get: client.get, getDetails: client.getDetails, setOverrides: client.setOverrides };
  const probe: DevtoolsProbe = {
    devtools: mountDevtools(client),
    mount: () => void (probe.devtools = mountDevtools(client)),
    listeners,
    liveTimers,
    originals,
  };
  return probe;
}
