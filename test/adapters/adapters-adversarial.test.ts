// Node environment: fake-indexeddb for IndexedDB, fakes for Web Storage and AsyncStorage.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, forceCloseDatabase } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAsyncStorage } from '../../adapters/async-storage';
import { createFileStorage, fileNameOf } from '../../adapters/file';
import { createIndexedDBStorage, type IndexedDBStorage } from '../../adapters/indexeddb';
import { createLocalStorage } from '../../adapters/local-storage';
import { StorageError } from '../../src/shared/errors';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';

let adapters: IndexedDBStorage[] = [];
const roots: string[] = [];
afterEach(async () => {
  for (const adapter of adapters.splice(0)) adapter.close();
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
  vi.restoreAllMocks();
});

function idb(options: Parameters<typeof createIndexedDBStorage>[0]): IndexedDBStorage {
  const adapter = createIndexedDBStorage(options);
  adapters.push(adapter);
  return adapter;
}

/** A factory that hands out every connection it opened. */
function recordingFactory(inner = new IDBFactory()) {
  const connections: IDBDatabase[] = [];
  const factory = Object.create(inner) as IDBFactory;
  factory.open = (name: string, version?: number) => {
    const request = inner.open(name, version);
    request.addEventListener('success', () => connections.push(request.result));
    return request;
  };
  return { factory, inner, connections };
}

function upgrade(factory: IDBFactory, name: string, version: number): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(name, version);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

describe('indexeddb: connections shared and lost', () => {
  it('two adapters with different stores on one database take turns upgrading it; every value round-trips', async () => {
    const factory = new IDBFactory();
    const flags = idb({ indexedDB: factory, dbName: 'shared', storeName: 'flags' });
    const other = idb({ indexedDB: factory, dbName: 'shared', storeName: 'other' });
    await Promise.all([flags.set('k', 'flags-1'), other.set('k', 'other-1')]);
    await Promise.all([flags.set('k', 'flags-2'), other.set('k', 'other-2'), flags.set('j', 'flags-j')]);
    expect(await Promise.all([flags.get('k'), other.get('k'), flags.get('j'), other.get('j')])).toEqual(['flags-2', 'other-2', 'flags-j', null]);
  });

  it('a write issued just before close() still commits and resolves; the next read reopens and sees it', async () => {
    const { factory, connections } = recordingFactory();
    const adapter = idb({ indexedDB: factory });
    await adapter.set('k', 'old');
    const writing = adapter.set('k', 'new');
    adapter.close();
    await expect(writing).resolves.toBeUndefined();
    expect(await adapter.get('k')).toBe('new');
    expect(connections).toHaveLength(2);
  });

  it('writes on either side of another tab upgrading the database land in call order', async () => {
    const { factory, inner } = recordingFactory();
    const adapter = idb({ indexedDB: factory });
    await adapter.set('k', 'first');
    const before = adapter.set('k', 'second');
    const upgraded = await upgrade(inner, 'flagplane', 5);
    upgraded.close();
    const after = adapter.set('k', 'third');
    await Promise.all([before, after]);
    expect(await adapter.get('k')).toBe('third');
  });

  it('a connection the browser closes in the middle of a write settles that write (no hang); after the close event the adapter reopens', async () => {
    const { factory, connections } = recordingFactory();
    const adapter = idb({ indexedDB: factory });
    await adapter.set('k', 'old');
    const writing = adapter.set('k', 'new').then(
      () => 'resolved',
      (error: unknown) => (error as Error).name,
    );
    await Promise.resolve();
    forceCloseDatabase(connections[0] as never);
    expect(['resolved', 'AbortError']).toContain(await writing);
    await vi.waitFor(() => adapter.set('k', 'after'));
    expect(await adapter.get('k')).toBe('after');
    expect(connections).toHaveLength(2);
  });

  // Was a bug: adapters/indexeddb.ts `run` — the adapter forgets its connection only on a
  // `versionchange` or `close` event. A connection that is closing without (or before) a
  // `close` event — the window while a forced close finishes its transactions, or WebKit,
  // which is known to drop connections without firing `close` — stays cached for ever:
  // `db.transaction` throws InvalidStateError on every later call and the cache is off for
  // the page's life. Fix: when `db.transaction` throws InvalidStateError, forget that
  // connection (as `forget` does) and reopen once.
  it('a connection closed under the adapter without a close event is reopened, not reused for ever', async () => {
    const { factory, connections } = recordingFactory();
    const adapter = idb({ indexedDB: factory });
    await adapter.set('k', 'v');
    connections[0]!.close(); // closed, as the browser may, with no close event
    await adapter.get('k').catch(() => undefined); // the first call may fail…
    expect(await adapter.get('k')).toBe('v'); // …but not every later one
  });

  it('a store method that throws (QuotaExceededError) rejects with that DOMException, and the next write works', async () => {
    const { factory, connections } = recordingFactory();
    const adapter = idb({ indexedDB: factory });
    await adapter.set('k', 'old');
    const db = connections[0]!;
    const transaction = db.transaction.bind(db);
    const quota = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    db.transaction = ((...args: Parameters<IDBDatabase['transaction']>) => {
      const tx = transaction(...args);
      const store = tx.objectStore.bind(tx);
      tx.objectStore = (name: string) => {
        const real = store(name);
        real.put = () => {
          throw quota;
        };
        return real;
      };
      return tx;
    }) as IDBDatabase['transaction'];
    await expect(adapter.set('k', 'x'.repeat(1000))).rejects.toBe(quota);
    db.transaction = transaction;
    expect(await adapter.get('k')).toBe('old');
    await adapter.set('k', 'fits');
    expect(await adapter.get('k')).toBe('fits');
  });
});

describe('indexeddb: with the client', () => {
  it('no IndexedDB at all: a StorageError for the read and one for the write, the network snapshot served', async () => {
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 'network' })).handler, {
      cache: idb({ dbName: 'missing' }),
      storageKey: 'snapshot',
    });
    expect('indexedDB' in globalThis).toBe(false);
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    await vi.waitFor(() => expect(errors).toHaveLength(2));
    expect(errors.every((error) => error instanceof StorageError)).toBe(true);
    expect(errors.map((error) => error.message)).toEqual([
      'reading "snapshot" failed: opening IndexedDB "missing" failed: IndexedDB is not available in this environment',
      'writing "snapshot" failed: opening IndexedDB "missing" failed: IndexedDB is not available in this environment',
    ]);
    expect(client.get('a')).toBe('network');
    await client.close();
  });
});

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

describe('async-storage: queues are per key', () => {
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

describe('async-storage: with the client', () => {
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

describe('local-storage: real Storage methods need their receiver', () => {
  it('calls the storage option\'s methods on the storage itself (a brand-checked Storage throws "Illegal invocation" otherwise)', () => {
    class BrandChecked {
      #items = new Map<string, string>();
      getItem(key: string) {
        return this.#items.get(key) ?? null;
      }
      setItem(key: string, value: string) {
        this.#items.set(key, String(value));
      }
      removeItem(key: string) {
        this.#items.delete(key);
      }
    }
    const adapter = createLocalStorage({ storage: new BrandChecked() });
    adapter.set('flagplane:snapshot:ab12', '{"a":"🚀"}');
    expect(adapter.get('flagplane:snapshot:ab12')).toBe('{"a":"🚀"}');
    adapter.remove('flagplane:snapshot:ab12');
    expect(adapter.get('flagplane:snapshot:ab12')).toBeNull();
  });

  it('a storage whose getItem fails while setItem works: the read is reported once, the write goes through', async () => {
    const items = new Map<string, string>();
    const storage = {
      getItem: () => {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
      setItem: (key: string, value: string) => void items.set(key, value),
      removeItem: (key: string) => void items.delete(key),
    };
    const { client, errors } = harness(snapshotServer(snapshotOf(2, { a: 'network' })).handler, {
      cache: createLocalStorage({ storage }),
      storageKey: 'snapshot',
    });
    await client.ready();
    expect(errors.map((error) => [error.code, error.message])).toEqual([['storage', 'reading "snapshot" failed: The operation is insecure.']]);
    expect(JSON.parse(items.get('snapshot')!).snapshot.version).toBe(2);
    expect(client.get('a')).toBe('network');
    await client.close();
  });
});

describe('file: two instances on one directory', () => {
  it('concurrent writes of one key from two instances leave one whole value and no temporary file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'flagplane-adv-'));
    roots.push(root);
    const [one, two] = [createFileStorage({ directory: root }), createFileStorage({ directory: root })];
    const values = Array.from({ length: 8 }, (_, index) => String(index).repeat(200_000 + index));
    await Promise.all(values.map((value, index) => (index % 2 ? one : two).set('k', value)));
    const final = await one.get('k');
    expect(values).toContain(final);
    expect(await readdir(root)).toEqual([fileNameOf('k')]);
  });
});
