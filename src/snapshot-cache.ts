import type { StorageError } from './errors';
import { checkSnapshot } from './snapshot-parse';
import type { FlagSnapshot } from './snapshot-types';
import type { StorageAdapter } from './storage-types';
import { settleStorage } from './sync-or-async';

/** The persisted record: the snapshot, its ETag and a fingerprint of the key that fetched it. */
interface PersistedSnapshot {
  format: 1;
  key: string;
  etag: string | null;
  snapshot: FlagSnapshot;
}

/** A miss (nothing stored, another key's or another schema's entry) is not delivered. */
export type CacheRead = { kind: 'hit'; snapshot: FlagSnapshot; etag: string | null } | { kind: 'error'; error: StorageError };

/**
 * Reads the cached snapshot, synchronously when the adapter is synchronous, and delivers
 * a hit or an error (`reading "<key>" failed: …`, also for a record that is not JSON).
 */
export function readCachedSnapshot(storage: StorageAdapter, storageKey: string, keyFingerprint: string, deliver: (read: CacheRead) => void): void {
  settleStorage(
    () => storage.get(storageKey),
    'reading',
    storageKey,
    (error) => deliver({ kind: 'error', error }),
    (raw) => {
      const record = JSON.parse(raw ?? 'null') as PersistedSnapshot | null;
      // A snapshot fetched with another key (another environment or key kind) is not ours.
      const checked = record?.format === 1 && record.key === keyFingerprint && checkSnapshot(record.snapshot, 'cache');
      if (checked && checked.kind === 'ok') deliver({ kind: 'hit', snapshot: checked.snapshot, etag: record!.etag });
    },
  );
}

export function writeCachedSnapshot(
  storage: StorageAdapter,
  storageKey: string,
  keyFingerprint: string,
  { snapshot, etag }: { snapshot: FlagSnapshot; etag: string | null },
  onError: (error: StorageError) => void,
): void {
  const record: PersistedSnapshot = { format: 1, key: keyFingerprint, etag, snapshot };
  settleStorage(() => storage.set(storageKey, JSON.stringify(record)), 'writing', storageKey, onError);
}
