// @vitest-environment happy-dom
import { act } from '@testing-library/react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlag, useFlagsClient, useFlagsStatus, useFlagDetails, useFlags } from '../../react/index';
import { type ClientOptions, type FlagsClient, createMemoryStorage, type FlagSnapshot, type StorageAdapter } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { QUIET, restore, hangingClientServing, hangingClientOptions, captureErrors, useAutoCleanup } from './fixtures';
import { created } from './created-clients';
import type { ReactNode } from 'react';

vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

useAutoCleanup(created);
let root: Root | undefined;
afterEach(() => {
  if (root) act(() => root!.unmount());
  root = undefined;
});

// What the server fetched (GET /sdk/v1/snapshot) and hands to the browser as `bootstrap`.
const bootstrap = snapshotOf(7, { 'new-checkout': true, banner: 'Hello from the snapshot', limits: { seats: 5 } });

let browserClient: FlagsClient | undefined;
function Page() {
  const checkout = useFlag('new-checkout', false);
  const banner = useFlag('banner', 'default banner');
  const limits = useFlag('limits', { seats: 1 });
  const { status, connection, source, version } = useFlagsStatus();
  browserClient = useFlagsClient();
  return (
    <main>
      <p id="checkout">{checkout ? 'new checkout' : 'old checkout'}</p>
      <p id="banner">{banner}</p>
      <p id="seats">{limits.seats}</p>
      <p id="status">{`${status}/${connection}/${source}/${version}`}</p>
    </main>
  );
}

function app(options: ClientOptions) {
  return (
    <FlagsProvider options={options}>
      <Page />
    </FlagsProvider>
  );
}

/** Renders as a server would: no `window`, so the provider knows no effect will follow. */
function renderOnServer(options: ClientOptions): string {
  vi.stubGlobal('window', undefined);
  try {
    return renderToString(app(options));
  } finally {
    vi.unstubAllGlobals();
  }
}

const textOf = (container: HTMLElement, id: string) => container.querySelector(`#${id}`)!.textContent;

describe('server rendering with a bootstrap snapshot', () => {
  it('renders the real values and closes the server-side client at once', async () => {
    const server = createFakeTransport(() => 'hang');
    // Events and persistence left on (flushAt 1 would send at the first read): the server's
    // throwaway client must do neither.
    const html = renderOnServer({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, bootstrap, flushAt: 1, transport: server.transport });

    expect(html).toContain('new checkout');
    expect(html).toContain('Hello from the snapshot');
    expect(html).toContain('<p id="seats">5</p>');
    // The status the browser's client will have while hydrating, not the server's `stopped`.
    expect(html).toContain('ready/polling/bootstrap/7');

    expect(created).toHaveLength(1);
    expect(created[0]!.getStatus().connection).toBe('stopped');
    await act(async () => {});
    expect(server.requests.map((request) => [request.method, request.signal.aborted])).toEqual([['GET', true]]);
    expect(localStorage.length).toBe(0);
  });

  it('hydrates that HTML without a mismatch, then follows the live client', async () => {
    const serverSide = createFakeTransport(() => 'hang');
    const html = renderOnServer({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, bootstrap, ...QUIET, transport: serverSide.transport });

    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const recoverable = vi.fn();

    const snapshots = snapshotServer(bootstrap);
    const browser = createFakeTransport(() => 'hang');
    await act(async () => {
      root = hydrateRoot(container, app({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, bootstrap, ...QUIET, transport: browser.transport }), {
        onRecoverableError: recoverable,
      });
    });

    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(html);

    // The browser's client is live: a newer snapshot reaches the hydrated page.
    snapshots.publish(snapshotOf(8, { 'new-checkout': false, banner: 'Fresh', limits: { seats: 9 } }));
    browser.setHandler(snapshots.handler);
    await act(() => browserClient!.refresh());
    expect(textOf(container, 'checkout')).toBe('old checkout');
    expect(textOf(container, 'banner')).toBe('Fresh');
    expect(textOf(container, 'seats')).toBe('9');
    expect(textOf(container, 'status')).toBe('ready/polling/network/8');
  });
});

describe('server rendering', () => {
  function Page() {
    const details = useFlagDetails('a', 'fb');
    const all = useFlags();
    const { status, source, version } = useFlagsStatus();
    return <p id="page">{`${details.value}/${details.reason} ${JSON.stringify(all)} ${status}/${source}/${version}`}</p>;
  }

  /** As a Node server renders: no window, no document, no storage globals. */
  function renderOnServer(node: ReactNode): { html: string; touched: string[] } {
    const touched: string[] = [];
    const names = ['window', 'document', 'localStorage', 'sessionStorage', 'indexedDB'] as const;
    for (const name of names) {
      const original = Object.getOwnPropertyDescriptor(globalThis, name);
      Object.defineProperty(globalThis, name, { configurable: true, get: () => (name !== 'window' && touched.push(name), undefined) });
      restore.push(() => {
        if (original) Object.defineProperty(globalThis, name, original);
        else delete (globalThis as Record<string, unknown>)[name];
      });
    }
    try {
      return { html: renderToString(node), touched };
    } finally {
      for (const undo of restore.splice(0).reverse()) undo();
    }
  }

  it('useFlagDetails, useFlags and useFlagsStatus render the bootstrap, and nothing reads localStorage or indexedDB', () => {
    const { html, touched } = renderOnServer(
      <FlagsProvider options={hangingClientOptions({ persist: true, events: true })}>
        <Page />
      </FlagsProvider>,
    );
    expect(html).toContain('a1/DEFAULT');
    expect(html).toContain('&quot;banner&quot;:&quot;everyone&quot;');
    expect(html).toContain('ready/bootstrap/1');
    expect(touched.filter((name) => name !== 'document')).toEqual([]);
    expect(created).toHaveLength(1);
    expect(created[0]!.getStatus().connection).toBe('stopped');
  });

  it('a server render with an app-owned client reads it through getServerSnapshot and leaves it open', async () => {
    const client = await hangingClientServing({ a: 'owned' });
    const { html } = renderOnServer(
      <FlagsProvider client={client}>
        <Page />
      </FlagsProvider>,
    );
    expect(html).toContain('owned/DEFAULT');
    expect(client.getStatus().connection).toBe('polling');
  });

  // Was a bug: provider.tsx `open` — the server client gets `persist: false`, but `persist: false`
  // does not turn off a `cache` that is given (docs/client.md), so a server render reads the
  // shared cache (serving what it holds instead of the bootstrap) and writes to it (a
  // generated anonymous id), although docs/react.md says persistence is off on the server.
  it('a server render neither reads nor writes the options.cache (persistence off on the server)', () => {
    const cache = createMemoryStorage();
    const { html } = renderOnServer(
      <FlagsProvider options={hangingClientOptions({ cache, anonymousId: undefined })}>
        <Page />
      </FlagsProvider>,
    );
    expect(html).toContain('a1/DEFAULT');
    // Before the fix the server client wrote its generated anonymous id here, and a second server
    // render would adopt it: every anonymous visitor bucketed alike on the server.
    expect(Object.fromEntries(cache.entries)).toEqual({});
  });
});

describe('hydration over a snapshot cached in the browser', () => {
  function Page() {
    const banner = useFlag('banner', 'default banner');
    const { status, source, version } = useFlagsStatus();
    return (
      <main>
        <p id="banner">{banner}</p>
        <p id="status">{`${status}/${source}/${version}`}</p>
      </main>
    );
  }
  const app = (options: ClientOptions) => (
    <FlagsProvider options={options}>
      <Page />
    </FlagsProvider>
  );
  const baseOptions = (cache: StorageAdapter, bootstrap: FlagSnapshot | undefined): ClientOptions => ({
    sdkKey: CLIENT_KEY,
    baseUrl: BASE_URL,
    transport: createFakeTransport(() => 'hang').transport,
    events: false,
    anonymousId: 'visitor-1',
    cache,
    bootstrap,
  });

  /** A browser cache holding `snapshot`, written as a previous visit's client wrote it. */
  async function cacheHolding(snapshot: FlagSnapshot): Promise<StorageAdapter> {
    const { createClient } = await import('../../src/index');
    const cache = createMemoryStorage();
    const server = snapshotServer(snapshot);
    const previous = createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: createFakeTransport(server.handler).transport, events: false, cache });
    await previous.ready();
    await previous.close();
    expect(cache.entries.size).toBeGreaterThan(0);
    return cache;
  }

  /** Server-renders `options` (no window), then hydrates the HTML with `options` in the browser. */
  async function serverThenHydrate(serverOptions: ClientOptions, browserOptions: ClientOptions) {
    vi.stubGlobal('window', undefined);
    let html: string;
    try {
      html = renderToString(app(serverOptions));
    } finally {
      vi.unstubAllGlobals();
    }
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);
    const errors = captureErrors();
    const recoverable = vi.fn();
    await act(async () => {
      root = hydrateRoot(container, app(browserOptions), { onRecoverableError: recoverable });
    });
    return { html, container, errors, recoverable };
  }

  it('a cached snapshot older than the bootstrap, with other values, hydrates without a mismatch', async () => {
    const cache = await cacheHolding(snapshotOf(5, { banner: 'cached banner' }));
    const bootstrap = snapshotOf(7, { banner: 'fresh banner' });
    const { html, container, errors, recoverable } = await serverThenHydrate(
      baseOptions(createMemoryStorage(), bootstrap),
      baseOptions(cache, bootstrap),
    );
    expect(html).toContain('fresh banner');
    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(html);
  });

  it('a cached snapshot of the same version, with other values, hydrates without a mismatch', async () => {
    const cache = await cacheHolding(snapshotOf(7, { banner: 'cached banner' }));
    const bootstrap = snapshotOf(7, { banner: 'fresh banner' });
    const { html, container, errors, recoverable } = await serverThenHydrate(
      baseOptions(createMemoryStorage(), bootstrap),
      baseOptions(cache, bootstrap),
    );
    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(html);
  });

  // KNOWN LIMITATION, documented in docs/react.md (with the workaround tested below). Reported as:
  // react/hooks.ts reads the browser client for getServerSnapshot during hydration, and a
  // browser client reads its cache synchronously at creation (src/client.ts openSnapshotCache),
  // while the server's client never reads a cache (provider.tsx `open`). When the server had no
  // snapshot to bootstrap with — the documented failure path of fetchFlagsSnapshot, "return
  // undefined; // render with the defaults; the browser fetches on its own" — a returning
  // visitor's cached snapshot is served during hydration: the flags and the status differ from
  // the HTML and React reports a hydration mismatch. docs/react.md: "A snapshot cached in the
  // browser (persist) does not disturb hydration", and "hydration reads the browser client ...
  // so the first render matches the HTML".
  it('with no bootstrap and persistence off (the documented workaround), hydration matches the HTML', async () => {
    const { html, container, errors, recoverable } = await serverThenHydrate(
      baseOptions(createMemoryStorage(), undefined),
      { ...baseOptions(createMemoryStorage(), undefined), cache: undefined, persist: false },
    );
    expect(html).toContain('default banner');
    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(html);
  });

  it.fails('with no bootstrap (the server fetch failed), a cached snapshot does not disturb hydration', async () => {
    const cache = await cacheHolding(snapshotOf(5, { banner: 'cached banner' }));
    const { html, container, errors, recoverable } = await serverThenHydrate(
      baseOptions(createMemoryStorage(), undefined),
      baseOptions(cache, undefined),
    );
    expect(html).toContain('default banner');
    expect(html).toContain('initializing/null/null');
    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(html);
  });
});
