import { createKeyQueue } from './key-queue';
import type { StorageAdapter } from '../src/storage/storage-types';

/**
 * The shape of React Native's AsyncStorage; localforage and thin wrappers over
 * Capacitor Preferences or Expo SecureStore have it too.
 */
export interface AsyncStorageLike {
  getItem(key: string): Promise<string | null | undefined>;
  setItem(key: string, value: string): Promise<unknown>;
  removeItem(key: string): Promise<unknown>;
}

/** Options of {@link createAsyncStorage}. */
export interface AsyncStorageOptions {
  /** Prepended to every key, to share one storage with other code. @default '' */
  prefix?: string | undefined;
}

/** An asynchronous {@link StorageAdapter}. */
export interface AsyncStorageAdapter extends StorageAdapter {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
}

/**
 * An asynchronous {@link StorageAdapter} over an AsyncStorage-shaped object. Calls on one
 * key run one after another in call order, so a later write always wins and a read sees
 * the writes issued before it, whatever order the storage completes them in. Failures
 * reject with the storage's own error.
 */
export function createAsyncStorage(storage: AsyncStorageLike, options: AsyncStorageOptions = {}): AsyncStorageAdapter {
  const prefix = options.prefix ?? '';
  const queue = createKeyQueue();
  return {
    get: (key) => queue(key, async () => (await storage.getItem(prefix + key)) ?? null),
    set: (key, value) => queue(key, async () => void (await storage.setItem(prefix + key, value))),
    remove: (key) => queue(key, async () => void (await storage.removeItem(prefix + key))),
  };
}
