import { browserTabLock } from '../platform/tab-lock';
import { fingerprint } from '../shared/fingerprint';
import type { StreamConnectOptions } from './stream-transport';
import type { StreamNotifyKind } from './stream-machine';

/**
 * How long a tab that fetched a version keeps the lock after sharing it. The tab channel and
 * the lock are separate: a browser may grant the next tab its turn before it has delivered
 * the snapshot sent just before (Chromium does, now and then, by a millisecond or two).
 */
export const SHARE_GRACE_MS = 50;

/**
 * One snapshot GET per publish for the tabs of a browser that share snapshots (`syncTabs`).
 * Each tab's stream hears every `snapshot.updated`; the tabs take turns on a lock named after
 * their SDK key. A tab hands the notice on to its client only while it holds the lock, and
 * keeps the lock until the fetch that notice caused has settled, which is when the snapshot
 * it brought went out on the tab channel (then {@link SHARE_GRACE_MS} more, if it brought the
 * version). So the next tab to get the lock already holds that version, and its client
 * ignores the notice (the machine decides that, as for any notice).
 *
 * Without tab sync (no `fetched`) or a lock, every notice is handed on at once, as is every
 * `resync`. A wait for the lock is capped at `waitMs` (one request's time): a tab whose holder
 * is stuck (suspended in the background, a fetch that never ends) then fetches by itself, and
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
  /** The wait's cap. */
  let timer: unknown;
  /** The grace of the turn in progress, and what ends it (early, on stop). */
  let grace: unknown;
  let endTurn: (() => void) | undefined;
  /** Hands the waiting version on, once: at the grant, at the cap, or when the lock is refused. */
  const handOn = (): void => {
    scheduler.clearTimeout(timer);
    if (waiting !== undefined && !stopped()) onNotify('updated', waiting);
    waiting = undefined;
  };
  /** A turn: the notice goes on, and the lock is kept until its fetch settled and was shared. */
  const turn = (): Promise<void> => {
    const version = waiting ?? Infinity;
    const held = () => (options.lastKnownVersion() ?? -1) >= version;
    const heldBefore = held();
    handOn();
    return (fetched as () => Promise<void>)().then(
      () =>
        new Promise<void>((resolve) => {
          endTurn = resolve;
          // Nothing to share (it held the version already), nothing shared (a failed fetch, an
          // answer still older), or stopped: the next tab's turn comes at once.
          if (heldBefore || !held() || stopped()) resolve();
          else grace = scheduler.setTimeout(resolve, SHARE_GRACE_MS);
        }),
    );
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
      lock.request(name, turn).catch(handOn);
    },
    stop(): void {
      scheduler.clearTimeout(timer);
      scheduler.clearTimeout(grace);
      endTurn?.();
    },
  };
}
