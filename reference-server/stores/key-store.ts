import type { KeyRecord } from './records';

/** The SDK keys of the working copy, with their revocations. */
export interface KeyStore {
  /** The record of an active key; revoked and unknown keys give `undefined`. */
  findActive(key: string): KeyRecord | undefined;
  get(key: string): KeyRecord | undefined;
  add(record: Omit<KeyRecord, 'revoked'>): KeyRecord;
  revoke(key: string): boolean;
  list(environmentId?: string): KeyRecord[];
}

export function createKeyStore(initial: readonly Omit<KeyRecord, 'revoked'>[]): KeyStore {
  const records = new Map<string, KeyRecord>();
  const store: KeyStore = {
    findActive(key) {
      const record = records.get(key);
      return record && !record.revoked ? record : undefined;
    },
    get: (key) => records.get(key),
    add(record) {
      if (records.has(record.key)) throw new Error(`duplicate key "${record.key}"`);
      const added: KeyRecord = { ...record, revoked: false };
      records.set(record.key, added);
      return added;
    },
    revoke(key) {
      const record = records.get(key);
      if (!record) return false;
      record.revoked = true;
      return true;
    },
    list: (environmentId) =>
      [...records.values()].filter((r) => environmentId === undefined || r.environmentId === environmentId),
  };
  for (const record of initial) store.add(record);
  return store;
}
