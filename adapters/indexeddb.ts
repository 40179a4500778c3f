import type { StorageAdapter } from '../src/storage/storage-types';

/** Options of {@link createIndexedDBStorage}. */
export interface IndexedDBStorageOptions {
  /** Database name. @default 'flagplane' */
  dbName?: string | undefined;
  /** Object store holding the values (out-of-line string keys). @default 'kv' */
  storeName?: string | undefined;
  /** The IndexedDB factory. @default globalThis.indexedDB, looked up at first use */
  indexedDB?: IDBFactory | undefined;
}

/** An asynchronous {@link StorageAdapter} on IndexedDB, with `close()` to release its connection. */
export interface IndexedDBStorage extends StorageAdapter {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
  /** Closes the connection; the next call opens a new one. */
  close(): void;
}

const failure = (message: string, cause: unknown) => new Error(`${message}: ${(cause as Error)?.message ?? cause}`, { cause });

/**
 * An asynchronous {@link StorageAdapter} on IndexedDB. The database is opened at first
 * use and the connection reused. When another tab upgrades or deletes the database
 * (`versionchange`), or the browser closes the connection, it is closed and reopened
 * at the next call. Failures reject: opening (no IndexedDB, `blocked` by another
 * tab's open connection, denied) with an `Error` naming the database and whose `cause`
 * is the original; a failed transaction (`QuotaExceededError`) with its `DOMException`.
 */
export function createIndexedDBStorage(options: IndexedDBStorageOptions = {}): IndexedDBStorage {
  const dbName = options.dbName ?? 'flagplane';
  const storeName = options.storeName ?? 'kv';
  let connection: Promise<IDBDatabase> | null = null;

  const database = (): Promise<IDBDatabase> => {
    if (connection) return connection;
    const opening: Promise<IDBDatabase> = openDatabase(() => options.indexedDB ?? globalThis.indexedDB, dbName, storeName).then(
      (db) => {
        const forget = () => {
          if (connection === opening) connection = null;
        };
        // Another tab upgrades or deletes the database: step aside, reopen at next use.
        db.onversionchange = () => {
          db.close();
          forget();
        };
        db.onclose = forget;
        return db;
      },
      (cause) => {
        if (connection === opening) connection = null;
        throw failure(`opening IndexedDB "${dbName}" failed`, cause);
      },
    );
    return (connection = opening);
  };

  const run = <T>(mode: IDBTransactionMode, operation: (store: IDBObjectStore) => IDBRequest, retried = false): Promise<T> => {
    const opened = database();
    return opened.then(
      (db) =>
        new Promise<T>((resolve, reject) => {
          let transaction: IDBTransaction;
          try {
            transaction = db.transaction(storeName, mode);
          } catch (cause) {
            // A connection the browser closed without a `close` event (WebKit does): reopen, once.
            if (retried || (cause as Error)?.name !== 'InvalidStateError') throw cause;
            if (connection === opened) connection = null;
            return resolve(run<T>(mode, operation, true));
          }
          const request = operation(transaction.objectStore(storeName));
          // Resolve on `complete`, not on the request's success: a write is durable only then.
          transaction.oncomplete = () => resolve(request.result as T);
          transaction.onabort = () => reject(transaction.error ?? new Error(`IndexedDB transaction on "${dbName}" aborted`));
        }),
    );
  };

  return {
    get: (key) => run<unknown>('readonly', (store) => store.get(key)).then((value) => (typeof value === 'string' ? value : null)),
    set: (key, value) => run<void>('readwrite', (store) => store.put(value, key)).then(() => undefined),
    remove: (key) => run<void>('readwrite', (store) => store.delete(key)).then(() => undefined),
    close() {
      const closing = connection;
      connection = null;
      closing?.then(
        (db) => db.close(),
        () => undefined,
      );
    },
  };
}

/**
 * Opens `dbName` with `storeName` in it: a database that exists without the store (made by
 * other code) is upgraded to add it.
 */
function openDatabase(indexedDB: () => IDBFactory | undefined, dbName: string, storeName: string, version?: number): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    // Looked up in here: a getter that throws rejects the promise.
    const factory = indexedDB();
    if (!factory) throw new Error('IndexedDB is not available in this environment');
    const request = factory.open(dbName, version);
    let settled = false;
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(storeName)) db.createObjectStore(storeName);
    };
    request.onsuccess = () => {
      const db = request.result;
      // We gave up on this request when it was blocked: release what it finally opened.
      if (settled) return db.close();
      settled = true;
      if (!db.objectStoreNames.contains(storeName)) {
        db.close();
        return openDatabase(indexedDB, dbName, storeName, db.version + 1).then(resolve, reject);
      }
      resolve(db);
    };
    request.onerror = () => {
      settled = true;
      reject(request.error);
    };
    request.onblocked = () => {
      settled = true;
      reject(new Error(`blocked: another connection to "${dbName}" is open and does not close`));
    };
  });
}
