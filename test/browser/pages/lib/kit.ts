import type { ClientOptions, FlagplaneError, StorageAdapter } from 'flagplane';
import { createIndexedDBStorage } from 'flagplane/adapters/indexeddb';
import { createLocalStorage } from 'flagplane/adapters/local-storage';
import { webSocketTransport } from 'flagplane/adapters/websocket';
import { ERRORS_KEY, IDB_NAME, LIFECYCLE_KEY } from './kit-keys';
import type { LifecycleEntry, PageApi, RecordedError } from './page-api';

export const params = new URLSearchParams(location.search);
const tag = params.get('tag') ?? 'page';
const now = () => performance.timeOrigin + performance.now();

function append<T>(storage: Storage, key: string, entry: T): void {
  try {
    storage.setItem(key, JSON.stringify([...(JSON.parse(storage.getItem(key) ?? '[]') as T[]), entry]));
  } catch {
    // A full or blocked storage must not break the page under test.
  }
}

/**
 * Creates `window.fp` with everything but the client: error recording, unhandled rejections
 * (logged with console.error so that the test side, which collects console errors of every
 * page, sees them even after a navigation), lifecycle recording and the visibility override.
 */
export function installProbes(): PageApi {
  addEventListener('unhandledrejection', (event) => {
    const reason = event.reason as Error | undefined;
    console.error(`[unhandledrejection] ${reason?.stack ?? reason?.message ?? String(reason)}`);
  });
  const lifecycle = (type: string, detail: string) =>
    append<LifecycleEntry>(localStorage, LIFECYCLE_KEY, { tag, type, detail, at: now() });
  addEventListener('pagehide', (event) => lifecycle('pagehide', `persisted=${event.persisted}`));
  addEventListener('beforeunload', () => lifecycle('beforeunload', ''));
  document.addEventListener('visibilitychange', () => lifecycle('visibilitychange', document.visibilityState));
  document.addEventListener('freeze', () => lifecycle('freeze', ''));

  let visibility: 'hidden' | 'visible' | null = null;
  const api: PageApi = {
    params: Object.fromEntries(params),
    tag,
    client: null,
    errors: [],
    changes: [],
    readyResult: null,
    firstRead: null,
    renders: {},
    setVisibility(state) {
      // Headless Chromium cannot really hide a page (page.bringToFront and friends do not
      // change visibilityState): override the getter and dispatch the event by hand, as the
      // happy-dom tests do (test/platform/*.test.ts).
      if (visibility === null) {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => visibility === 'hidden' });
      }
      visibility = state;
      document.dispatchEvent(new Event('visibilitychange'));
    },
    storageDump: () => dumpStorage(),
  };
  window.fp = api;
  return api;
}

/** Records one onError call in `fp.errors` and in `sessionStorage`. */
export function recordError(api: PageApi, error: FlagplaneError): void {
  const extra = error as FlagplaneError & { status?: number; closeCode?: number | null };
  const entry: RecordedError = { tag, name: error.name, code: error.code, message: error.message, at: now() };
  if (typeof extra.status === 'number') entry.status = extra.status;
  if (extra.closeCode !== undefined) entry.closeCode = extra.closeCode;
  api.errors.push(entry);
  append(sessionStorage, ERRORS_KEY, entry);
}

function chosenCache(): StorageAdapter | undefined {
  switch (params.get('storage') ?? 'default') {
    case 'indexeddb':
      return createIndexedDBStorage({ dbName: IDB_NAME });
    case 'local':
      return createLocalStorage();
    default:
      return undefined;
  }
}

const number = (name: string): number | undefined => (params.has(name) ? Number(params.get(name)) : undefined);

/**
 * Client options from the page's query string: `api` (baseUrl), `key`, `ws` (stream URL,
 * with the WebSocket transport), `storage` (`default` | `local` | `indexeddb` | `none`),
 * `poll`, `flush` (flushInterval), `sync=0`, `pauseOffline=0`, `events=0`, `user`.
 */
export function clientOptions(api: PageApi): ClientOptions {
  const options: ClientOptions = {
    sdkKey: params.get('key') ?? '',
    baseUrl: params.get('api') ?? '',
    onError: (error) => recordError(api, error),
  };
  const ws = params.get('ws');
  if (ws) Object.assign(options, { streamUrl: ws, streamTransport: webSocketTransport });
  const cache = chosenCache();
  if (cache) options.cache = cache;
  if (params.get('storage') === 'none') options.persist = false;
  const poll = number('poll');
  if (poll !== undefined) options.pollInterval = poll;
  const flush = number('flush');
  if (flush !== undefined) options.flushInterval = flush;
  if (params.get('sync') === '0') options.syncTabs = false;
  if (params.get('pauseOffline') === '0') options.pauseWhenOffline = false;
  if (params.get('events') === '0') options.events = false;
  const user = params.get('user');
  if (user) options.context = { userId: user };
  return options;
}

/** Records every notification of the client in `fp.changes`. */
export function recordChanges(api: PageApi): void {
  api.client!.subscribe(({ changed, status }) =>
    api.changes.push({ changed: [...changed], version: status.version, source: status.source, connection: status.connection, at: now() }),
  );
}

const isOurs = (key: string) => key.startsWith('flagplane:') || key.startsWith('svc:');

async function dumpStorage(): Promise<Record<string, string>> {
  if (params.get('storage') !== 'indexeddb') {
    return Object.fromEntries(Object.keys(localStorage).filter(isOurs).map((key) => [key, localStorage.getItem(key)!]));
  }
  // Read with the raw API, not the adapter: this checks what really reached IndexedDB.
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(IDB_NAME);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    if (!db.objectStoreNames.contains('kv')) return {};
    const store = db.transaction('kv', 'readonly').objectStore('kv');
    const [keys, values] = await Promise.all(
      [store.getAllKeys(), store.getAll()].map(
        (request) => new Promise<unknown[]>((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error)))),
      ),
    );
    return Object.fromEntries(keys!.map((key, i) => [String(key), String(values![i])]).filter(([key]) => isOurs(key!)));
  } finally {
    db.close();
  }
}
