import { createTabSync } from '../platform/tab-sync';
import type { FlagplaneError } from '../shared/errors';
import { checkSnapshot } from '../snapshot/snapshot-parse';
import type { FlagSnapshot } from '../snapshot/snapshot-types';
import { openSnapshotCache, type CachedSnapshot } from '../storage/snapshot-cache';
import type { StorageAdapter } from '../storage/storage-types';
import type { MachineEvent } from './transition';

/**
 * The snapshots a client gets from elsewhere than the network: the bootstrap and the cache
 * (at once, synchronously where the storage is), and other tabs (as they come). Each is
 * offered to the machine, which accepts only a newer version. Returns where a snapshot
 * fetched from the network goes: the cache and the other tabs.
 */
export function openSnapshotSources(
  bootstrap: FlagSnapshot | undefined,
  storageKey: string | undefined,
  syncTabs: boolean,
  /** The durable cache, if any. */
  storage: StorageAdapter | undefined,
  /** Of the SDK key: names the cache record's owner and the tabs' channel. */
  keyFingerprint: string,
  dispatch: (event: MachineEvent) => void,
  report: (error: FlagplaneError) => void,
) {
  /** A snapshot from elsewhere than the network, or the failure to read one. */
  const offer = (source: 'bootstrap' | 'cache' | 'tab', found: { snapshot: FlagSnapshot; etag?: string | null } | { error: FlagplaneError }) => {
    if ('error' in found) report(found.error);
    else dispatch({ type: 'snapshot-received', snapshot: found.snapshot, etag: found.etag ?? null, source });
  };
  if (bootstrap) offer('bootstrap', checkSnapshot(bootstrap, 'bootstrap'));
  const key = storageKey ?? `flagplane:snapshot:${keyFingerprint}`;
  const persist = storage && openSnapshotCache(storage, key, keyFingerprint, (cached) => offer('cache', cached), report);
  const tabs = syncTabs ? createTabSync(`flagplane:${keyFingerprint}`, (message) => offer('tab', message)) : null;
  return {
    /** Keeps a snapshot fetched from the network and shares it with the other tabs. */
    keep(fetched: CachedSnapshot): void {
      persist?.(fetched);
      tabs?.publish(fetched);
    },
    close: () => tabs?.close(),
  };
}
