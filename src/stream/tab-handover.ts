import { browserTabLock } from '../platform/tab-lock';
import { fingerprint } from '../shared/fingerprint';
import type { StreamConnectOptions } from './stream-transport';
import type { StreamNotifyKind } from './stream-machine';

/**
 * How long a tab waits for the tab channel when its turn comes after another tab's and it
 * does not hold the version yet. The channel and the lock are separate: a browser may grant
 * the turn before it has delivered the snapshot the tab before sent (Chromium does, now and
 * then, by a millisecond or two).
 */
export const SHARE_GRACE_MS = 50;

/**
 * One snapshot GET per publish for the tabs of a browser that share snapshots (`syncTabs`).
 * Each tab's stream hears every `snapshot.updated`; the tabs take turns on a lock named after
 * their SDK key. A tab hands the notice on to its client only while it holds the lock, and
 * keeps the lock until the fetch that notice caused has settled, which is when the snapshot
 * it brought went out on the tab channel. So the next tab to get the lock holds that version
 * (or does within {@link SHARE_GRACE_MS}), and its client ignores the notice (the machine
 * decides that, as for any notice). A tab that finds the lock free takes its turn at once.
 *
 * Without tab sync (no `fetched`) or a lock, every notice is handed on at once, as is every
 * `resync`. A wait for the lock is capped at `waitMs` (one request's time): a tab whose holder
 * is stuck (suspended in the background, a fetch that never ends) then fetches by itself, and
 * its request, granted later, hands on nothing. A tab closed while it holds the lock loses
 * it, so the next one fetches (after the grace). Notices heard while waiting only raise the
 * version handed on, as notices during a fetch do.
 */
export function tabHandover(options: StreamConnectOptions, waitMs: number, stopped: () => boolean) {
  const { fetched, onNotify, scheduler } = options;
  const lock = fetched && (options.tabLock ?? browserTabLock());
  // Named as the tab channel is (snapshot-sources.ts): the tabs of one key.
  const name = 'flagplane:' + fingerprint(options.sdkKey);
  /** The version waiting for the lock: the highest one heard since the wait began. */
  let waiting: number | undefined;
  /** The wait's cap, then the turn's grace: one ends where the other begins. */
  let timer: unknown;
  /** Ends the turn's grace (early, on stop). */
  let endGrace: (() => void) | undefined;
  /** Hands the waiting version on, once: at the turn, at the cap, or when the lock is refused. */
  const handOn = (): void => {
    scheduler.clearTimeout(timer);
    if (waiting !== undefined && !stopped()) onNotify('updated', waiting);
    waiting = undefined;
  };
  /** A turn: the notice goes on (after the grace, if any), and the lock is kept until its fetch settled. */
  const turn =
    (graceMs: number) =>
    (): Promise<unknown> =>
      new Promise<void>((resolve) => {
        scheduler.clearTimeout(timer);
        endGrace = resolve;
        if (graceMs && !stopped() && (options.lastKnownVersion() ?? -1) < (waiting ?? -1)) timer = scheduler.setTimeout(resolve, graceMs);
        else resolve();
      }).then(() => (handOn(), (fetched as () => Promise<void>)()));
  return {
    notify(kind: StreamNotifyKind, version: number): void {
      if (!lock || kind == 'resync') return onNotify(kind, version);
      if (waiting !== undefined) {
        waiting = Math.max(waiting, version);
        return;
      }
      waiting = version;
      timer = scheduler.setTimeout(handOn, waitMs);
      // Free: no tab before this one, nothing on its way over the channel.
      lock.request(name, { ifAvailable: true }, (free) => (free ? turn(0)() : lock.request(name, {}, turn(SHARE_GRACE_MS)))).catch(handOn);
    },
    stop(): void {
      scheduler.clearTimeout(timer);
      endGrace?.();
    },
  };
}
