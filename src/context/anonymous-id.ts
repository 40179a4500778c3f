import type { StorageError } from '../shared/errors';
import type { StorageAdapter } from '../storage/storage-types';
import { settleStorage } from '../storage/sync-or-async';

/**
 * A random UUID v4: `crypto.randomUUID` where there is one (Hermes may lack it), else from
 * `random`, with the variant nibble fixed at 8 (still 120 random bits).
 */
export function generateId(random: () => number): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return crypto?.randomUUID?.() ?? 'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replaceAll('x', () => Math.floor(random() * 16).toString(16));
}

/**
 * Reads the persisted anonymous id, or persists a new one. A synchronous storage answers
 * before `createClient` returns; an async one calls `adopt` when it answers with an id
 * of its own (the generated one is used until then).
 */
export function loadAnonymousId(
  storage: StorageAdapter | undefined,
  key: string,
  generated: string,
  adopt: (id: string) => void,
  report: (error: StorageError) => void,
): void {
  if (!storage) return;
  settleStorage(
    () => storage.get(key),
    'reading',
    key,
    report,
    (stored) => {
      if (stored && stored.length <= 256) adopt(stored);
      else settleStorage(() => storage.set(key, generated), 'writing', key, report);
    },
  );
}
