// @vitest-environment happy-dom
import { act, render, screen } from '@testing-library/react';
import { Activity, Component, StrictMode, useState, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlag, useFlagDetails, useFlags, useFlagsStatus } from '../../react/index';
import { createMemoryStorage, type ClientOptions, type FlagsClient } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { FlagText, QUIET, snapshotV, type RenderCounts } from './fixtures';
import { created, listeners } from './created-clients';

vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

const text = (testId: string) => screen.getByTestId(testId).textContent;

let restore: Array<() => void> = [];
afterEach(async () => {
  const { cleanup } = await import('@testing-library/react');
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  for (const undo of restore.splice(0).reverse()) undo();
  for (const client of created.splice(0)) await client.close();
});

/** A client on a transport that never answers, already serving `bootstrap` (snapshotV(1) by default). */
async function hangingClient(values: Parameters<typeof snapshotV>[1] = {}): Promise<FlagsClient> {
  const { createClient } = await import('../../src/index');
  return createClient({
    sdkKey: CLIENT_KEY,
    baseUrl: BASE_URL,
    transport: createFakeTransport(() => 'hang').transport,
    bootstrap: snapshotV(1, values),
    ...QUIET,
  });
}

function hangingOptions(extra: Partial<ClientOptions> = {}): ClientOptions {
  return {
    sdkKey: CLIENT_KEY,
    baseUrl: BASE_URL,
    transport: createFakeTransport(() => 'hang').transport,
    bootstrap: snapshotV(1),
    ...QUIET,
    ...extra,
  };
}

describe('useFlag with props that change between renders', () => {
  it('a key that changes moves the one subscription: the old key no longer re-renders, the new one does', async () => {
    const client = await hangingClient();
    let setKey!: (key: string) => void;
    const counts: RenderCounts = {};
    function Reader() {
      const [key, set] = useState('a');
      setKey = set;
      counts.reader = (counts.reader ?? 0) + 1;
      return <span data-testid="reader">{String(useFlag(key))}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Reader />
      </FlagsProvider>,
    );
    expect(text('reader')).toBe('a1');
    expect(listeners(client)).toBe(1);

    act(() => setKey('b'));
    expect(text('reader')).toBe('b1');
    expect(listeners(client)).toBe(1);
    const before = counts.reader!;

    act(() => client.setOverrides({ a: 'qa' }));
    expect(counts.reader).toBe(before);
    act(() => client.setOverrides({ a: 'qa', b: 'qb' }));
    expect(text('reader')).toBe('qb');
    expect(counts.reader).toBe(before + 1);
  });

  it('a fallback that changes is served at the next render, without a new subscription', async () => {
    const client = await hangingClient();
    let setFallback!: (fallback: string) => void;
    function Reader() {
      const [fallback, set] = useState('first');
      setFallback = set;
      return <span data-testid="reader">{useFlag('missing', fallback)}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Reader />
      </FlagsProvider>,
    );
    expect(text('reader')).toBe('first');
    const subscribe = vi.spyOn(client, 'subscribe');
    act(() => setFallback('second'));
    expect(text('reader')).toBe('second');
    expect(subscribe).not.toHaveBeenCalled();
    expect(listeners(client)).toBe(1);
  });

  it('inline object fallbacks (a new object each render) for missing and mistyped keys cause no render loop under StrictMode', async () => {
    const client = await hangingClient();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const counts: RenderCounts = {};
    function Reader() {
      counts.reader = (counts.reader ?? 0) + 1;
      const missing = useFlag('missing', { seats: 1 });
      const mistyped = useFlag('a', { seats: 2 }); // `a` serves a string: TYPE_MISMATCH
      const details = useFlagDetails('missing', { seats: 3 });
      return <span data-testid="reader">{JSON.stringify([missing, mistyped, details.value, details.errorCode])}</span>;
    }
    render(
      <StrictMode>
        <FlagsProvider client={client}>
          <Reader />
        </FlagsProvider>
      </StrictMode>,
    );
    expect(text('reader')).toBe('[{"seats":1},{"seats":2},{"seats":3},"FLAG_NOT_FOUND"]');
    // StrictMode renders twice; a loop would render until React gives up.
    expect(counts.reader).toBeLessThanOrEqual(2);
    act(() => client.setOverrides({ c: 'other' }));
    expect(counts.reader).toBeLessThanOrEqual(2);
    expect(errors).not.toHaveBeenCalled();
  });

  it('useFlagDetails follows a reason-only change (same value, now an override)', async () => {
    const client = await hangingClient();
    function Details() {
      const { value, reason } = useFlagDetails('a', 'fb');
      return <span data-testid="details">{`${value} ${reason}`}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Details />
      </FlagsProvider>,
    );
    expect(text('details')).toBe('a1 DEFAULT');
    act(() => client.setOverrides({ a: 'a1' }));
    expect(text('details')).toBe('a1 OVERRIDE');
  });
});

describe('subscriptions: nothing leaks', () => {
  it('a new client prop drops every subscription on the old client and serves no stale value', async () => {
    const [first, second] = [await hangingClient({ a: 'first' }), await hangingClient({ a: 'second' })];
    const counts: RenderCounts = {};
    const tree = (client: FlagsClient) => (
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
        <FlagText flag="b" counts={counts} />
        <Statuses />
      </FlagsProvider>
    );
    function Statuses() {
      useFlagsStatus();
      useFlags();
      return null;
    }
    const view = render(tree(first));
    expect(listeners(first)).toBe(4);
    view.rerender(tree(second));
    expect(listeners(first)).toBe(0);
    expect(listeners(second)).toBe(4);
    expect(text('a')).toBe('"second"');
    const before = { ...counts };
    act(() => first.setOverrides({ a: 'stale', b: 'stale' }));
    expect(counts).toEqual(before);
    expect(text('a')).toBe('"second"');
    view.unmount();
    expect(listeners(second)).toBe(0);
  });

  it('StrictMode double effects with an app-owned client leave exactly one listener per hook, none after unmount', async () => {
    const client = await hangingClient();
    const counts: RenderCounts = {};
    const view = render(
      <StrictMode>
        <FlagsProvider client={client}>
          <FlagText flag="a" counts={counts} />
          <FlagText flag="b" counts={counts} />
        </FlagsProvider>
      </StrictMode>,
    );
    expect(listeners(client)).toBe(2);
    act(() => client.setOverrides({ a: 'qa' }));
    expect(text('a')).toBe('"qa"');
    view.unmount();
    expect(listeners(client)).toBe(0);
  });

  it('StrictMode with options: the one open client holds one listener per hook; the closed one none', async () => {
    const options = hangingOptions();
    const counts: RenderCounts = {};
    const view = render(
      <StrictMode>
        <FlagsProvider options={options}>
          <FlagText flag="a" counts={counts} />
          <FlagText flag="b" counts={counts} />
        </FlagsProvider>
      </StrictMode>,
    );
    await act(async () => {});
    const open = created.filter((client) => client.getStatus().connection !== 'stopped');
    expect(open).toHaveLength(1);
    expect(listeners(open[0]!)).toBe(2);
    for (const closed of created.filter((client) => client !== open[0])) expect(listeners(closed)).toBe(0);
    view.unmount();
    expect(created.map(listeners)).toEqual(created.map(() => 0));
  });

  it('unmounting while a refresh is in flight: the refresh settles, nothing is logged, no listener is left', async () => {
    const server = snapshotServer(snapshotV(1));
    let answer!: () => void;
    const gate = new Promise<void>((resolve) => (answer = resolve));
    const fake = createFakeTransport(async (request) => {
      await gate;
      return server.handler(request);
    });
    const { createClient } = await import('../../src/index');
    const client = createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: fake.transport, ...QUIET });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const counts: RenderCounts = {};
    const view = render(
      <FlagsProvider client={client}>
        <FlagText flag="a" fallback="waiting" counts={counts} />
      </FlagsProvider>,
    );
    expect(text('a')).toBe('"waiting"');
    view.unmount();
    expect(listeners(client)).toBe(0);
    answer();
    await act(() => client.ready());
    expect(client.get('a')).toBe('a1');
    expect(counts.a).toBe(1);
    expect(errors).not.toHaveBeenCalled();
  });

  // Was a bug: provider.tsx — the effect runs once ([] deps) and returns early when a `client` was
  // given, so a client the provider creates after a switch to `options` is never claimed and
  // never closed: it keeps polling after the provider unmounts.
  it('a provider switched from client to options closes the client it then creates, at the latest on unmount', async () => {
    const given = await hangingClient();
    const options = hangingOptions();
    const counts: RenderCounts = {};
    const view = render(
      <FlagsProvider client={given}>
        <FlagText flag="a" counts={counts} />
      </FlagsProvider>,
    );
    view.rerender(
      <FlagsProvider options={options}>
        <FlagText flag="a" counts={counts} />
      </FlagsProvider>,
    );
    await act(async () => {});
    const owned = created.filter((client) => client !== given);
    expect(owned).toHaveLength(1);
    view.unmount();
    expect(owned[0]!.getStatus().connection).toBe('stopped');
  });
});

describe('errors inside components', () => {
  class Boundary extends Component<{ children: ReactNode }, { failed: boolean }> {
    override state = { failed: false };
    static getDerivedStateFromError() {
      return { failed: true };
    }
    override render() {
      return this.state.failed ? <span data-testid="boundary">caught</span> : this.props.children;
    }
  }

  it('a reader that throws on a new value is caught by its boundary; other readers keep following the client', async () => {
    const client = await hangingClient();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    function Fragile() {
      const value = useFlag('a', 'a1');
      if (value === 'boom') throw new Error('cannot render boom');
      return <span data-testid="fragile">{value}</span>;
    }
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <Boundary>
          <Fragile />
        </Boundary>
        <FlagText flag="b" counts={counts} />
      </FlagsProvider>,
    );
    act(() => client.setOverrides({ a: 'boom' }));
    expect(text('boundary')).toBe('caught');
    act(() => client.setOverrides({ a: 'boom', b: 'after' }));
    expect(text('b')).toBe('"after"');
    // The failed subtree unsubscribed: no listener of `a` is left behind.
    expect(listeners(client)).toBe(1);
    errors.mockRestore();
  });

  it('an app listener that throws neither stops the readers nor reaches React; it is reported as a listener error', async () => {
    const { createClient } = await import('../../src/index');
    const reported: string[] = [];
    const client = createClient({
      sdkKey: CLIENT_KEY,
      baseUrl: BASE_URL,
      transport: createFakeTransport(() => 'hang').transport,
      bootstrap: snapshotV(1),
      onError: (error) => reported.push(error.code),
      ...QUIET,
    });
    client.subscribe(() => {
      throw new Error('app listener');
    });
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
      </FlagsProvider>,
    );
    act(() => client.setOverrides({ a: 'qa' }));
    expect(text('a')).toBe('"qa"');
    expect(reported).toEqual(['listener']);
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
      <FlagsProvider options={hangingOptions({ persist: true, events: true })}>
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
    const client = await hangingClient({ a: 'owned' });
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
      <FlagsProvider options={hangingOptions({ cache, anonymousId: undefined })}>
        <Page />
      </FlagsProvider>,
    );
    expect(html).toContain('a1/DEFAULT');
    // Before the fix the server client wrote its generated anonymous id here, and a second server
    // render would adopt it: every anonymous visitor bucketed alike on the server.
    expect(Object.fromEntries(cache.entries)).toEqual({});
  });
});

describe('<Activity> hiding and showing a provider that owns its client', () => {
  it('hiding closes the client; showing again serves a fresh one that the hooks follow, with one listener per hook', async () => {
    const options = hangingOptions();
    const counts: RenderCounts = {};
    const tree = (mode: 'visible' | 'hidden') => (
      <Activity mode={mode}>
        <FlagsProvider options={options}>
          <FlagText flag="a" counts={counts} />
        </FlagsProvider>
      </Activity>
    );
    const view = render(tree('visible'));
    await act(async () => {});
    expect(created).toHaveLength(1);
    const first = created[0]!;
    view.rerender(tree('hidden'));
    expect(first.getStatus().connection).toBe('stopped');
    view.rerender(tree('visible'));
    await act(async () => {});
    const open = created.filter((client) => client.getStatus().connection !== 'stopped');
    expect(open).toHaveLength(1);
    expect(open[0]).not.toBe(first);
    expect(listeners(open[0]!)).toBe(1);
    act(() => open[0]!.setOverrides({ a: 'after show' }));
    expect(text('a')).toBe('"after show"');
    view.unmount();
    expect(created.every((client) => client.getStatus().connection === 'stopped')).toBe(true);
  });
});
