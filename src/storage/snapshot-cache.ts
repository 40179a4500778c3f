import type { StorageError } from '../shared/errors';
import { checkSnapshot } from '../snapshot/snapshot-parse';
import { isString } from '../shared/guards';
import type { FlagSnapshot } from '../snapshot/snapshot-types';
import type { StorageAdapter } from './storage-types';
import { settleStorage } from './sync-or-async';

/** A snapshot with the ETag it was served with. */
export interface CachedSnapshot {
  snapshot: FlagSnapshot;
  etag: string | null;
}

/** The persisted record: the snapshot, its ETag and a fingerprint of the key that fetched it. */
interface PersistedSnapshot extends CachedSnapshot {
  format: 1;
  key: string;
}

/**
 * Opens the durable snapshot cache at `storageKey`: reads it at once — synchronously when
 * the adapter is synchronous — and returns the function that writes an entry. The record
 * carries `keyFingerprint`: a snapshot fetched with another key (another environment or
 * key kind) is a miss, as are an empty key and another format. A hit goes to `onHit`; a
 * failure (`reading "<key>" failed: …`, also for a record that is not JSON, or `writing …`)
 * to `onError`.
 */
export function openSnapshotCache(
  storage: StorageAdapter,
  storageKey: string,
  keyFingerprint: string,
  onHit: (cached: CachedSnapshot) => void,
  onError: (error: StorageError) => void,
): (entry: CachedSnapshot) => void {
  settleStorage(
    () => storage.get(storageKey),
    'reading',
    storageKey,
    onError,
    (raw) => {
      const record = JSON.parse(raw ?? 'null') as PersistedSnapshot | null;
      const checked = record?.format === 1 && record.key === keyFingerprint && checkSnapshot(record.snapshot, 'cache');
      if (checked && checked.kind === 'ok') onHit({ snapshot: checked.snapshot, etag: isString(record!.etag) ? record!.etag : null });
      // A record of ours holding a broken snapshot is reported (as a failed read); one of
      // another schema is quietly not ours to serve.
      else if (checked && (record!.snapshot as { schemaVersion?: unknown } | null)?.schemaVersion === 1) throw checked.error;
    },
  );
  return ({ snapshot, etag }) => {
    const record: PersistedSnapshot = { format: 1, key: keyFingerprint, etag, snapshot };
    settleStorage(() => storage.set(storageKey, JSON.stringify(record)), 'writing', storageKey, onError);
  };
}
