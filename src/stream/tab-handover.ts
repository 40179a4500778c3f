import { browserTabLock } from '../platform/tab-lock';
import { fingerprint } from '../shared/fingerprint';
import type { StreamConnectOptions } from './stream-transport';
import type { StreamNotifyKind } from './stream-machine';

/**
 * One snapshot GET per publish for the tabs of a browser that share snapshots (`syncTabs`).
 * Each tab's stream hears every `snapshot.updated`; the tabs take turns on a lock named after
 * their SDK key. A tab hands the notice on to its client only while it holds the lock, and
 * keeps the lock until the fetch that notice caused has settled, which is when the snapshot
 * it brought went out on the tab channel. So the next tab to get the lock already holds that
 * version, and its client ignores the notice (the machine decides that, as for any notice).
 *
 * Without tab sync (no `fetched`) or a lock, every notice is handed on at once, as is every
 * `resync`. A wait for the lock is capped at `waitMs` (one request's time): a tab whose holder
 * is stuck (frozen in the background, a fetch that never ends) then fetches by itself, and
 * its request, granted later, hands on nothing. A tab closed while it holds the lock loses
 * it, so the next one fetches. Notices heard while waiting only raise the version handed on,
 * as notices during a fetch do.
 */
export function tabHandover(options: StreamConnectOptions, waitMs: number, stopped: () => boolean) {
  const { fetched, onNotify, scheduler } = options;
  const lock = fetched && (options.tabLock ?? browserTabLock());
  // Named as the tab channel is (snapshot-sources.ts): the tabs of one key.
  const name = 'flagplane:' + fingerprint(options.sdkKey);
  /** The version waiting for the lock: the highest one heard since the wait began. */
  let waiting: number | undefined;
  let timer: unknown;
  /** Hands the waiting version on, once: at the grant, at the cap, or when the lock is refused. */
  const handOn = (): void => {
    scheduler.clearTimeout(timer);
    if (waiting !== undefined && !stopped()) onNotify('updated', waiting);
    waiting = undefined;
  };
  return {
    notify(kind: StreamNotifyKind, version: number): void {
      if (!lock || kind == 'resync') return onNotify(kind, version);
      if (waiting !== undefined) {
        waiting = Math.max(waiting, version);
        return;
      }
      waiting = version;
      timer = scheduler.setTimeout(handOn, waitMs);
      lock.request(name, () => (handOn(), fetched())).catch(handOn);
    },
    stop: (): void => scheduler.clearTimeout(timer),
  };
}
