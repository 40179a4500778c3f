import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAsyncStorage, type AsyncStorageLike } from '../../adapters/async-storage';
import { StorageError } from '../../src/shared/errors';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { describeStorageAdapter } from './adapter-contract';

/**
 * A fake React Native AsyncStorage over a Map. Like the native module it answers later,
 * and a large write takes longer than a small one, so completions can overtake calls.
 */
function fakeAsyncStorage(backing = new Map<string, string>()) {
  const later = <T>(ms: number, work: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(work()), ms));
  return {
    backing,
    getItem: vi.fn((key: string) => later(0, () => backing.get(key) ?? null)),
    setItem: vi.fn((key: string, value: string) => later(value.length > 1000 ? 10 : 0, () => void backing.set(key, value))),
    removeItem: vi.fn((key: string) => later(0, () => void backing.delete(key))),
  };
}

describeStorageAdapter('async-storage', async () => {
  const backing = new Map<string, string>();
  return {
    adapter: createAsyncStorage(fakeAsyncStorage(backing)),
    reopen: () => createAsyncStorage(fakeAsyncStorage(backing)),
  };
});

describeStorageAdapter('async-storage with a prefix', async () => {
  const backing = new Map<string, string>();
  return {
    adapter: createAsyncStorage(fakeAsyncStorage(backing), { prefix: 'app:' }),
    reopen: () => createAsyncStorage(fakeAsyncStorage(backing), { prefix: 'app:' }),
  };
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('async-storage: behaviour', () => {
  it('stores under the key as given by default, and under prefix + key with a prefix', async () => {
    const storage = fakeAsyncStorage();
    await createAsyncStorage(storage).set('flagplane:snapshot:ab12', 'plain');
    await createAsyncStorage(storage, { prefix: '@my-app/' }).set('flagplane:snapshot:ab12', 'prefixed');
    expect(Object.fromEntries(storage.backing)).toEqual({
      'flagplane:snapshot:ab12': 'plain',
      '@my-app/flagplane:snapshot:ab12': 'prefixed',
    });
    expect(await createAsyncStorage(storage, { prefix: '@my-app/' }).get('flagplane:snapshot:ab12')).toBe('prefixed');
    await createAsyncStorage(storage, { prefix: '@my-app/' }).remove('flagplane:snapshot:ab12');
    expect([...storage.backing.keys()]).toEqual(['flagplane:snapshot:ab12']);
  });

  it('every method answers a promise', () => {
    const adapter = createAsyncStorage(fakeAsyncStorage());
    expect(adapter.get('k')).toBeInstanceOf(Promise);
    expect(adapter.set('k', 'v')).toBeInstanceOf(Promise);
    expect(adapter.remove('k')).toBeInstanceOf(Promise);
  });

  it('an undefined answer (some wrappers) reads as null', async () => {
    const storage: AsyncStorageLike = { getItem: async () => undefined, setItem: async () => undefined, removeItem: async () => undefined };
    expect(await createAsyncStorage(storage).get('k')).toBeNull();
  });

  it('accepts localforage-shaped objects whose setItem resolves with the value', async () => {
    const backing = new Map<string, unknown>();
    const localforageLike = {
      getItem: async <T>(key: string) => (backing.get(key) ?? null) as T | null,
      setItem: async <T>(key: string, value: T) => (backing.set(key, value), value),
      removeItem: async (key: string) => void backing.delete(key),
    };
    const adapter = createAsyncStorage(localforageLike);
    await expect(adapter.set('k', 'v')).resolves.toBeUndefined();
    expect(await adapter.get('k')).toBe('v');
  });
});

describe('async-storage: failures', () => {
  it('rejects with the storage\'s own error, and the key stays usable afterwards', async () => {
    const storage = fakeAsyncStorage();
    const full = new Error('database or disk is full (code 13 SQLITE_FULL)');
    storage.setItem.mockImplementationOnce(() => Promise.reject(full));
    const adapter = createAsyncStorage(storage);
    await expect(adapter.set('k', 'v')).rejects.toBe(full);
    await adapter.set('k', 'v2');
    expect(await adapter.get('k')).toBe('v2');
  });

  it('a storage that throws synchronously still rejects rather than throwing', async () => {
    const storage = fakeAsyncStorage();
    const broken = new Error('AsyncStorage native module is null');
    storage.getItem.mockImplementationOnce(() => {
      throw broken;
    });
    const adapter = createAsyncStorage(storage);
    let result: Promise<string | null> | undefined;
    expect(() => (result = adapter.get('k'))).not.toThrow();
    await expect(result).rejects.toBe(broken);
  });

  it('a failed read is reported by the client as a StorageError with the cause', async () => {
    const storage = fakeAsyncStorage();
    const broken = new Error('AsyncStorage native module is null');
    storage.getItem.mockImplementation(() => Promise.reject(broken));
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, { cache: createAsyncStorage(storage) });
    await client.ready();
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
    expect(errors[0]).toBeInstanceOf(StorageError);
    expect(errors[0]!.cause).toBe(broken);
    expect(client.get('a')).toBe(1);
    await client.close();
  });
});

describe('async-storage: with the client', () => {
  it('a client created after an app restart is ready from the cached snapshot', async () => {
    const backing = new Map<string, string>();
    const first = harness(snapshotServer(snapshotOf(2, { banner: 'cached' })).handler, { cache: createAsyncStorage(fakeAsyncStorage(backing)) });
    await first.client.ready();
    await first.client.close();
    await vi.waitFor(() => expect(backing.size).toBe(1));

    const second = harness(() => 'hang', { cache: createAsyncStorage(fakeAsyncStorage(backing)) });
    await expect(second.client.ready()).resolves.toEqual({ status: 'ready', source: 'cache' });
    expect(second.client.get('banner')).toBe('cached');
    expect(second.errors).toEqual([]);
    await second.client.close();
  });
});
