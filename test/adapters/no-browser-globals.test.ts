// Runs in the node environment: no window, no localStorage, no indexedDB.
import { afterEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/shared/errors';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { overrideGlobal } from './global-override';

const BROWSER_GLOBALS = ['window', 'self', 'document', 'navigator', 'localStorage', 'sessionStorage', 'indexedDB'];
const ADAPTERS = ['local-storage', 'indexeddb', 'memory', 'async-storage', 'file'] as const;

let restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.reverse()) undo();
  restore = [];
});

/** Traps every browser global with a getter that records the access and answers undefined. */
function trapBrowserGlobals(): string[] {
  const touched: string[] = [];
  for (const name of BROWSER_GLOBALS) {
    restore.push(overrideGlobal(name, { get: () => (touched.push(name), undefined) }));
  }
  return touched;
}

describe('adapters and browser globals', () => {
  it('importing every adapter module, and calling every factory, touches no browser global', async () => {
    const touched = trapBrowserGlobals();
    const modules = await Promise.all(ADAPTERS.map((name) => import(`../../adapters/${name}.ts`)));
    expect(touched).toEqual([]);

    const [localStorageModule, indexedDBModule, memoryModule, asyncStorageModule, fileModule] = modules;
    const local = localStorageModule.createLocalStorage();
    const idb = indexedDBModule.createIndexedDBStorage();
    memoryModule.createMemoryStorage();
    asyncStorageModule.createAsyncStorage({ getItem: async () => null, setItem: async () => undefined, removeItem: async () => undefined });
    fileModule.createFileStorage({ directory: '/nonexistent/flagplane-test' });
    expect(touched).toEqual([]);

    // The trap works: the first use does look the globals up.
    expect(() => local.get('k')).toThrow('localStorage is not available in this environment');
    await expect(idb.get('k')).rejects.toThrow('IndexedDB is not available in this environment');
    expect(touched).toEqual(['localStorage', 'indexedDB']);
  });

  it('there is no localStorage here: every method throws "not available in this environment"', async () => {
    expect('localStorage' in globalThis).toBe(false);
    const { createLocalStorage } = await import('../../adapters/local-storage');
    const adapter = createLocalStorage();
    expect(() => adapter.get('k')).toThrow('localStorage is not available in this environment');
    expect(() => adapter.set('k', 'v')).toThrow('localStorage is not available in this environment');
    expect(() => adapter.remove('k')).toThrow('localStorage is not available in this environment');
  });

  it('a server-rendered client given createLocalStorage reports one StorageError at creation and serves the network', async () => {
    const { createLocalStorage } = await import('../../adapters/local-storage');
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 'network' })).handler, { cache: createLocalStorage() });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StorageError);
    expect((errors[0]!.cause as Error).message).toBe('localStorage is not available in this environment');
    expect(client.get('a', 'default')).toBe('default');
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(client.get('a', 'default')).toBe('network');
    await client.close();
  });
});
