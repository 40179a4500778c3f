// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLocalStorage } from '../../adapters/local-storage';
import { StorageError } from '../../src/shared/errors';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { describeStorageAdapter } from './adapter-contract';
import { mapStorage, overrideGlobal } from './global-override';

describeStorageAdapter('local-storage', async () => {
  localStorage.clear();
  return {
    adapter: createLocalStorage(),
    reopen: () => createLocalStorage(),
    cleanup: () => localStorage.clear(),
  };
});

let restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.reverse()) undo();
  restore = [];
  localStorage.clear();
  sessionStorage.clear();
});

describe('local-storage: behaviour', () => {
  it('is synchronous: get returns the value itself, set and remove return undefined', () => {
    const adapter = createLocalStorage();
    expect(adapter.set('k', 'v')).toBeUndefined();
    expect(adapter.get('k')).toBe('v');
    expect(adapter.remove('k')).toBeUndefined();
    expect(adapter.get('k')).toBeNull();
  });

  it('writes through to window.localStorage under the key as given', () => {
    createLocalStorage().set('flagplane:snapshot:ab12', 'v');
    expect(window.localStorage.getItem('flagplane:snapshot:ab12')).toBe('v');
  });

  it('uses the storage option instead of localStorage', () => {
    const adapter = createLocalStorage({ storage: sessionStorage });
    adapter.set('k', 'session');
    expect(sessionStorage.getItem('k')).toBe('session');
    expect(localStorage.getItem('k')).toBeNull();
  });

  it('looks localStorage up at first use, not at creation, and keeps it', () => {
    const real = localStorage;
    let reads = 0;
    restore.push(overrideGlobal('localStorage', { get: () => (reads++, real) }));
    const adapter = createLocalStorage();
    expect(reads).toBe(0);
    adapter.set('k', 'v');
    expect(reads).toBe(1);
    expect(adapter.get('k')).toBe('v');
    expect(reads).toBe(1);
  });
});

describe('local-storage: failures', () => {
  it('a storage whose methods throw (private mode) throws the same error from every method', () => {
    const denied = new DOMException('The operation is insecure.', 'SecurityError');
    const storage = {
      getItem: () => {
        throw denied;
      },
      setItem: () => {
        throw denied;
      },
      removeItem: () => {
        throw denied;
      },
    };
    const adapter = createLocalStorage({ storage });
    expect(() => adapter.get('k')).toThrow(denied);
    expect(() => adapter.set('k', 'v')).toThrow(denied);
    expect(() => adapter.remove('k')).toThrow(denied);
  });

  it('a QuotaExceededError from setItem surfaces unchanged from set, and the old value stays', () => {
    const storage = mapStorage(new Map([['k', 'old']]));
    const quota = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    storage.setItem = () => {
      throw quota;
    };
    const adapter = createLocalStorage({ storage });
    let thrown: unknown;
    try {
      adapter.set('k', 'x'.repeat(1000));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(quota);
    expect((thrown as DOMException).name).toBe('QuotaExceededError');
    expect(adapter.get('k')).toBe('old');
  });

  it('a localStorage getter that throws (sandboxed iframe) makes every method throw a clear error with the cause', () => {
    const denied = new DOMException("Failed to read the 'localStorage' property from 'Window'", 'SecurityError');
    restore.push(
      overrideGlobal('localStorage', {
        get() {
          throw denied;
        },
      }),
    );
    const adapter = createLocalStorage();
    for (const call of [() => adapter.get('k'), () => adapter.set('k', 'v'), () => adapter.remove('k')]) {
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as Error).message).toBe("localStorage is not available: Failed to read the 'localStorage' property from 'Window'");
      expect((thrown as Error).cause).toBe(denied);
    }
  });

  it('a failed lookup is not remembered: once localStorage is reachable, the same adapter works', () => {
    const real = localStorage;
    let denied = true;
    restore.push(
      overrideGlobal('localStorage', {
        get() {
          if (denied) throw new DOMException('denied', 'SecurityError');
          return real;
        },
      }),
    );
    const adapter = createLocalStorage();
    expect(() => adapter.get('k')).toThrow(/localStorage is not available/);
    denied = false;
    adapter.set('k', 'v');
    expect(real.getItem('k')).toBe('v');
  });

  it('a localStorage that is undefined throws "not available in this environment"', () => {
    restore.push(overrideGlobal('localStorage', { value: undefined, writable: true }));
    const adapter = createLocalStorage();
    expect(() => adapter.get('k')).toThrow('localStorage is not available in this environment');
    expect(() => adapter.set('k', 'v')).toThrow('localStorage is not available in this environment');
  });
});

describe('local-storage: with the client', () => {
  it('a client created after a reload serves the cached snapshot before createClient returns', async () => {
    const server = snapshotServer(snapshotOf(3, { banner: 'cached' }));
    const first = harness(server.handler, { cache: createLocalStorage() });
    await first.client.ready();
    await first.client.close();
    const stored = Object.keys(localStorage).filter((key) => key.startsWith('flagplane:snapshot:'));
    expect(stored).toHaveLength(1);

    const second = harness(() => 'hang', { cache: createLocalStorage() });
    expect(second.client.get('banner')).toBe('cached');
    expect(second.client.getStatus()).toMatchObject({ status: 'ready', source: 'cache', version: 3 });
    expect(second.errors).toEqual([]);
    await second.client.close();
  });

  it('an unreachable localStorage is reported as a StorageError whose cause says why, and the client carries on', async () => {
    const denied = new DOMException('The operation is insecure.', 'SecurityError');
    restore.push(
      overrideGlobal('localStorage', {
        get() {
          throw denied;
        },
      }),
    );
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, { cache: createLocalStorage() });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StorageError);
    expect(errors[0]!.message).toMatch(/^reading "flagplane:snapshot:[0-9a-f]+" failed: localStorage is not available: /);
    expect((errors[0]!.cause as Error).message).toBe('localStorage is not available: The operation is insecure.');
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(client.get('a')).toBe(1);
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/^reading /), expect.stringMatching(/^writing /)]);
    await client.close();
  });

  it('a full quota on the write is reported as a StorageError with the QuotaExceededError as cause', async () => {
    const storage = mapStorage();
    storage.setItem = () => {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, { cache: createLocalStorage({ storage }) });
    await client.ready();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StorageError);
    expect(errors[0]!.message).toMatch(/^writing /);
    expect((errors[0]!.cause as DOMException).name).toBe('QuotaExceededError');
    expect(client.get('a')).toBe(1);
    await client.close();
  });
});

describe('real Storage methods need their receiver', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
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
