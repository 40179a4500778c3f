import { StorageError } from './errors';
import { checkSnapshot } from './snapshot-parse';
import type { FlagSnapshot } from './snapshot-types';
import type { StorageAdapter } from './storage-types';
import { whenSettled } from './sync-or-async';

/** The persisted record: the snapshot, its ETag and a fingerprint of the key that fetched it. */
interface PersistedSnapshot {
  format: 1;
  key: string;
  etag: string | null;
  snapshot: FlagSnapshot;
}

export type CacheRead =
  | { kind: 'hit'; snapshot: FlagSnapshot; etag: string | null }
  | { kind: 'miss' }
  | { kind: 'error'; error: StorageError };

function decode(raw: string, keyFingerprint: string, storageKey: string): CacheRead {
  let record: Partial<PersistedSnapshot>;
  try {
    record = JSON.parse(raw) as Partial<PersistedSnapshot>;
  } catch (cause) {
    return { kind: 'error', error: new StorageError(`cached snapshot under "${storageKey}" is not JSON`, cause) };
  }
  // A snapshot fetched with another key (another environment or key kind) is not ours.
  if (record?.format !== 1 || record.key !== keyFingerprint) return { kind: 'miss' };
  const checked = checkSnapshot(record.snapshot, `cached snapshot under "${storageKey}"`);
  if (checked.kind === 'invalid') return { kind: 'miss' };
  return { kind: 'hit', snapshot: checked.snapshot, etag: typeof record.etag === 'string' ? record.etag : null };
}

/** Reads the cached snapshot, synchronously when the adapter is synchronous. */
export function readCachedSnapshot(storage: StorageAdapter, storageKey: string, keyFingerprint: string, deliver: (read: CacheRead) => void): void {
  whenSettled(
    () => storage.get(storageKey),
    (raw) => deliver(raw === null || raw === undefined ? { kind: 'miss' } : decode(raw, keyFingerprint, storageKey)),
    (cause) => deliver({ kind: 'error', error: new StorageError(`reading "${storageKey}" failed: ${(cause as Error)?.message ?? cause}`, cause) }),
  );
}

export function writeCachedSnapshot(
  storage: StorageAdapter,
  storageKey: string,
  keyFingerprint: string,
  cached: { snapshot: FlagSnapshot; etag: string | null },
  onError: (error: StorageError) => void,
): void {
  const record: PersistedSnapshot = { format: 1, key: keyFingerprint, etag: cached.etag, snapshot: cached.snapshot };
  whenSettled(
    () => storage.set(storageKey, JSON.stringify(record)),
    () => undefined,
    (cause) => onError(new StorageError(`writing "${storageKey}" failed: ${(cause as Error)?.message ?? cause}`, cause)),
  );
}
