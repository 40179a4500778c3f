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

/** A fake AsyncStorage whose calls settle only when the test says so. */
function manualAsyncStorage() {
  const backing = new Map<string, string>();
  const pending: Array<{ key: string; settle: () => void }> = [];
  const later = <T>(key: string, work: () => T) =>
    new Promise<T>((resolve) => pending.push({ key, settle: () => resolve(work()) }));
  return {
    backing,
    pending,
    getItem: (key: string) => later(key, () => backing.get(key) ?? null),
    setItem: (key: string, value: string) => later(key, () => void backing.set(key, value)),
    removeItem: (key: string) => later(key, () => void backing.delete(key)),
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

describe('queues are per key', () => {
  it('a slow call on one key never holds up another key', async () => {
    const storage = manualAsyncStorage();
    const adapter = createAsyncStorage(storage);
    const slow = adapter.get('slow');
    const fast = adapter.set('fast', 'v');
    await vi.waitFor(() => expect(storage.pending.map((call) => call.key)).toEqual(['slow', 'fast']));
    storage.pending[1]!.settle();
    await fast;
    expect(storage.backing.get('fast')).toBe('v');
    storage.pending[0]!.settle();
    expect(await slow).toBeNull();
  });

  it('a storage that completes in reverse order still ends with the last write, and reads see the writes before them', async () => {
    const storage = manualAsyncStorage();
    const adapter = createAsyncStorage(storage, { prefix: 'p:' });
    const results = Promise.all([adapter.set('k', '1'), adapter.get('k'), adapter.set('k', '2'), adapter.remove('k'), adapter.get('k'), adapter.set('k', '3')]);
    // Only one call on the key is ever in flight: settle each as it comes.
    for (let index = 0; index < 6; index++) {
      await vi.waitFor(() => expect(storage.pending).toHaveLength(1));
      storage.pending.shift()!.settle();
    }
    const [, read1, , , read2] = await results;
    expect([read1, read2]).toEqual(['1', null]);
    expect(Object.fromEntries(storage.backing)).toEqual({ 'p:k': '3' });
  });
});

describe('with the client, on a storage that rejects', () => {
  it('an AsyncStorage that rejects everything: each read and write is one StorageError, the snapshot stays in memory', async () => {
    const rejected = new Error('AsyncStorage: database or disk is full');
    const storage = {
      getItem: vi.fn(() => Promise.reject(rejected)),
      setItem: vi.fn(() => Promise.reject(rejected)),
      removeItem: vi.fn(() => Promise.reject(rejected)),
    };
    // No anonymousId: the client also reads (and would write) the anonymous id through the cache.
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 'network' })).handler, {
      cache: createAsyncStorage(storage),
      anonymousId: undefined,
    });
    await client.ready();
    await vi.waitFor(() => expect(errors).toHaveLength(3));
    expect(errors.every((error) => error instanceof StorageError && error.cause === rejected)).toBe(true);
    expect(errors.map((error) => error.message.replace(/[0-9a-f]{16}/, 'FP')).sort()).toEqual([
      'reading "flagplane:snapshot:FP" failed: AsyncStorage: database or disk is full',
      'reading "svc:anonymousId" failed: AsyncStorage: database or disk is full',
      'writing "flagplane:snapshot:FP" failed: AsyncStorage: database or disk is full',
    ]);
    expect(client.get('a')).toBe('network');
    expect(client.getStatus()).toMatchObject({ status: 'ready', source: 'network', version: 1 });
    await client.close();
  });
});
