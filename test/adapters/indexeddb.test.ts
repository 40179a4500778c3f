import { IDBFactory, forceCloseDatabase } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIndexedDBStorage, type IndexedDBStorage } from '../../adapters/indexeddb';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { describeStorageAdapter } from './adapter-contract';
import { overrideGlobal } from './global-override';
import { StorageError } from '../../src/shared/errors';

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

describeStorageAdapter('indexeddb', async () => {
  const factory = new IDBFactory();
  const opened: IndexedDBStorage[] = [];
  const make = () => {
    const adapter = createIndexedDBStorage({ indexedDB: factory });
    opened.push(adapter);
    return adapter;
  };
  return {
    adapter: make(),
    reopen: make,
    cleanup: () => {
      for (const adapter of opened) adapter.close();
    },
  };
});

let adapters: IndexedDBStorage[] = [];
let restore: Array<() => void> = [];
afterEach(() => {
  for (const adapter of adapters) adapter.close();
  for (const undo of restore.reverse()) undo();
  adapters = [];
  restore = [];
});

function track(adapter: IndexedDBStorage): IndexedDBStorage {
  adapters.push(adapter);
  return adapter;
}

/** A factory that records `open` calls and the connections they opened. */
function countingFactory(inner = new IDBFactory()) {
  const calls: Array<{ name: string; version: number | undefined }> = [];
  const connections: IDBDatabase[] = [];
  const factory = Object.create(inner) as IDBFactory;
  factory.open = (name: string, version?: number) => {
    calls.push({ name, version });
    const req = inner.open(name, version);
    req.addEventListener('success', () => connections.push(req.result));
    return req;
  };
  return { factory, inner, calls, connections };
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Opens a raw connection, running `upgrade` in `upgradeneeded`. */
function openRaw(factory: IDBFactory, name: string, version?: number, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  const req = factory.open(name, version);
  req.onupgradeneeded = () => upgrade?.(req.result);
  return request(req);
}

/** Deletes a database; answers whether another connection blocked the deletion. */
function deleteDatabase(factory: IDBFactory, name: string): Promise<'deleted' | 'blocked'> {
  return new Promise((resolve, reject) => {
    const req = factory.deleteDatabase(name);
    req.onsuccess = () => resolve('deleted');
    req.onblocked = () => resolve('blocked');
    req.onerror = () => reject(req.error);
  });
}

/** A factory whose every `open` fails the way a denied or broken IndexedDB does. */
function failingFactory(error: DOMException) {
  let opens = 0;
  const factory = {
    open() {
      opens++;
      const req = { error } as unknown as IDBOpenDBRequest;
      setTimeout(() => req.onerror?.(new Event('error')));
      return req;
    },
  } as unknown as IDBFactory;
  return { factory, opens: () => opens };
}

describe('indexeddb: behaviour', () => {
  it('stores strings in the "kv" store of the "flagplane" database by default, under the key as given', async () => {
    const factory = new IDBFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('flagplane:snapshot:ab12', 'v');
    adapter.close();
    const db = await openRaw(factory, 'flagplane');
    expect(Array.from(db.objectStoreNames)).toEqual(['kv']);
    expect(await request(db.transaction('kv').objectStore('kv').get('flagplane:snapshot:ab12'))).toBe('v');
    db.close();
  });

  it('honours dbName and storeName', async () => {
    const factory = new IDBFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory, dbName: 'my-app', storeName: 'flags' }));
    await adapter.set('k', 'v');
    adapter.close();
    const db = await openRaw(factory, 'my-app');
    expect(await request(db.transaction('flags').objectStore('flags').get('k'))).toBe('v');
    db.close();
    expect((await factory.databases()).map((info) => info.name)).toEqual(['my-app']);
  });

  it('opens the database once, at first use, and reuses the connection', async () => {
    const { factory, calls } = countingFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    expect(calls).toHaveLength(0);
    await Promise.all([adapter.get('a'), adapter.set('b', '1'), adapter.get('c')]);
    await adapter.remove('b');
    expect(calls).toEqual([{ name: 'flagplane', version: undefined }]);
  });

  it('looks globalThis.indexedDB up at first use', async () => {
    const factory = new IDBFactory();
    let reads = 0;
    restore.push(overrideGlobal('indexedDB', { get: () => (reads++, factory) }));
    const adapter = track(createIndexedDBStorage());
    expect(reads).toBe(0);
    await adapter.set('k', 'global');
    expect(reads).toBe(1);
    const db = await openRaw(factory, 'flagplane');
    expect(await request(db.transaction('kv').objectStore('kv').get('k'))).toBe('global');
    db.close();
  });

  it('a value that is not a string (written by other code) reads as null', async () => {
    const factory = new IDBFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('k', 'v');
    adapter.close();
    const db = await openRaw(factory, 'flagplane');
    const tx = db.transaction('kv', 'readwrite');
    tx.objectStore('kv').put({ not: 'a string' }, 'k');
    await new Promise((resolve) => (tx.oncomplete = resolve));
    db.close();
    expect(await adapter.get('k')).toBeNull();
  });

  it('adds its store, one version up, to an existing database that lacks it, keeping what is there', async () => {
    const factory = new IDBFactory();
    const other = await openRaw(factory, 'flagplane', 3, (db) => db.createObjectStore('theirs'));
    other.close();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('k', 'v');
    expect(await adapter.get('k')).toBe('v');
    adapter.close();
    const db = await openRaw(factory, 'flagplane');
    expect(db.version).toBe(4);
    expect(Array.from(db.objectStoreNames).sort()).toEqual(['kv', 'theirs']);
    db.close();
  });
});

describe('indexeddb: the connection lifecycle', () => {
  it('close() releases the connection (a deletion is not blocked) and the next call reopens', async () => {
    const { factory, inner, calls } = countingFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('k', 'v');
    adapter.close();
    expect(await deleteDatabase(inner, 'flagplane')).toBe('deleted');
    expect(await adapter.get('k')).toBeNull();
    await adapter.set('k', 'again');
    expect(await adapter.get('k')).toBe('again');
    expect(calls).toHaveLength(2);
  });

  it('close() while the database is still opening leaves no connection behind', async () => {
    const factory = new IDBFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    const pending = adapter.get('k').catch((error: unknown) => error);
    adapter.close();
    await pending;
    expect(await deleteDatabase(factory, 'flagplane')).toBe('deleted');
  });

  it('another tab upgrading the database is not blocked: the adapter closes, then reopens at next use', async () => {
    const { factory, inner, calls } = countingFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('k', 'v');
    const blocked: string[] = [];
    const req = inner.open('flagplane', 7);
    req.onblocked = () => blocked.push('blocked');
    const upgraded = await request(req);
    expect(blocked).toEqual([]);
    upgraded.close();
    expect(await adapter.get('k')).toBe('v');
    expect(calls).toHaveLength(2);
  });

  it('another tab deleting the database is not blocked; the adapter then starts from an empty one', async () => {
    const factory = new IDBFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('k', 'v');
    expect(await deleteDatabase(factory, 'flagplane')).toBe('deleted');
    expect(await adapter.get('k')).toBeNull();
    await adapter.set('k', 'v2');
    expect(await adapter.get('k')).toBe('v2');
  });

  it('a connection the browser closes (storage cleared, disk error) is reopened at next use', async () => {
    const { factory, calls, connections } = countingFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('k', 'v');
    expect(connections).toHaveLength(1);
    forceCloseDatabase(connections[0] as never);
    expect(await adapter.get('k')).toBe('v');
    expect(calls).toHaveLength(2);
  });
});

describe('indexeddb: failures', () => {
  it('no IndexedDB at all rejects with a clear error', async () => {
    restore.push(overrideGlobal('indexedDB', { value: undefined, writable: true }));
    const adapter = track(createIndexedDBStorage());
    await expect(adapter.get('k')).rejects.toThrow('opening IndexedDB "flagplane" failed: IndexedDB is not available in this environment');
    await expect(adapter.set('k', 'v')).rejects.toThrow(/IndexedDB is not available/);
  });

  it('an indexedDB getter that throws rejects with the cause', async () => {
    const denied = new DOMException('A mutation operation was attempted on a database that did not allow mutations.', 'InvalidStateError');
    restore.push(
      overrideGlobal('indexedDB', {
        get() {
          throw denied;
        },
      }),
    );
    const error = await track(createIndexedDBStorage()).get('k').catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`opening IndexedDB "flagplane" failed: ${denied.message}`);
    expect((error as Error).cause).toBe(denied);
  });

  it('an open request that fails rejects with a clear error, and the next call tries again', async () => {
    const failure = new DOMException('Internal error opening backing store', 'UnknownError');
    const { factory, opens } = failingFactory(failure);
    const adapter = track(createIndexedDBStorage({ indexedDB: factory, dbName: 'app-flags' }));
    const error = (await adapter.get('k').catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe('opening IndexedDB "app-flags" failed: Internal error opening backing store');
    expect(error.cause).toBe(failure);
    await expect(adapter.set('k', 'v')).rejects.toThrow(/^opening IndexedDB "app-flags" failed/);
    expect(opens()).toBe(2);
  });

  it('an open that throws synchronously rejects', async () => {
    const factory = {
      open() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    } as unknown as IDBFactory;
    await expect(track(createIndexedDBStorage({ indexedDB: factory })).get('k')).rejects.toThrow(
      'opening IndexedDB "flagplane" failed: The operation is insecure.',
    );
  });

  it('an upgrade blocked by a connection that never closes rejects; the adapter recovers once it is gone', async () => {
    const factory = new IDBFactory();
    // Another tab's connection, on a database without our store, that ignores versionchange.
    const stubborn = await openRaw(factory, 'flagplane', 1, (db) => db.createObjectStore('theirs'));
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await expect(adapter.get('k')).rejects.toThrow(
      'opening IndexedDB "flagplane" failed: blocked: another connection to "flagplane" is open and does not close',
    );
    stubborn.close();
    await adapter.set('k', 'v');
    expect(await adapter.get('k')).toBe('v');
    adapter.close();
    // The connection the blocked request finally opened was closed too.
    expect(await deleteDatabase(factory, 'flagplane')).toBe('deleted');
  });

  it('a request the store refuses rejects with its DOMException', async () => {
    const factory = new IDBFactory();
    // Our store name, created by other code with a key path: put(value, key) is a DataError.
    const other = await openRaw(factory, 'flagplane', 1, (db) => db.createObjectStore('kv', { keyPath: 'id' }));
    other.close();
    const error = (await track(createIndexedDBStorage({ indexedDB: factory }))
      .set('k', 'v')
      .catch((caught: unknown) => caught)) as DOMException;
    expect(error.name).toBe('DataError');
  });

  it('an aborted transaction rejects (a write is not reported done before it commits)', async () => {
    const { factory, connections } = countingFactory();
    const adapter = track(createIndexedDBStorage({ indexedDB: factory }));
    await adapter.set('k', 'old');
    const db = connections[0]!;
    const transaction = db.transaction.bind(db);
    db.transaction = ((...args: Parameters<IDBDatabase['transaction']>) => {
      const tx = transaction(...args);
      queueMicrotask(() => tx.abort());
      return tx;
    }) as IDBDatabase['transaction'];
    await expect(adapter.set('k', 'new')).rejects.toThrow('IndexedDB transaction on "flagplane" aborted');
    db.transaction = transaction;
    expect(await adapter.get('k')).toBe('old');
  });
});

describe('indexeddb: with the client', () => {
  it('a client created after a reload reads the cached snapshot and is ready from the cache', async () => {
    const factory = new IDBFactory();
    const firstCache = track(createIndexedDBStorage({ indexedDB: factory }));
    const first = harness(snapshotServer(snapshotOf(5, { banner: 'cached' })).handler, { cache: firstCache, storageKey: 'snapshot' });
    await first.client.ready();
    await first.client.close();
    // The client does not wait for its write; wait until it has landed.
    await vi.waitFor(async () => expect(await firstCache.get('snapshot')).not.toBeNull());

    const second = harness(() => 'hang', { cache: track(createIndexedDBStorage({ indexedDB: factory })), storageKey: 'snapshot' });
    expect(second.client.get('banner', 'default')).toBe('default');
    await expect(second.client.ready()).resolves.toEqual({ status: 'ready', source: 'cache' });
    expect(second.client.get('banner')).toBe('cached');
    expect(second.errors).toEqual([]);
    await second.client.close();
  });
});

describe('connections shared and lost', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
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

describe('with the client, without IndexedDB', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
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
