// @vitest-environment happy-dom
import { act, render, screen } from '@testing-library/react';
import { StrictMode, Suspense, use, useState, type ReactNode, Activity } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlagsClient, useFlag } from '../../react/index';
import type { ClientOptions, FlagsClient } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { FlagText, QUIET, snapshotV, useAutoCleanup, type RenderCounts, text, hangingClientOptions, hangingClientFrom } from './fixtures';
import { created, listeners } from './created-clients';

vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

useAutoCleanup(created);

/** Options on a transport that never answers: every request stays open until aborted. */
function hangingOptions(): { options: ClientOptions; requests: ReturnType<typeof createFakeTransport>['requests'] } {
  const fake = createFakeTransport(() => 'hang');
  return {
    options: { sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: fake.transport, bootstrap: snapshotV(1), ...QUIET },
    requests: fake.requests,
  };
}

const connections = () => created.map((client) => client.getStatus().connection);
// The transport is called a microtask after the request starts.
const flushMicrotasks = () => act(async () => {});

function ClientProbe({ seen }: { seen: FlagsClient[] }) {
  seen.push(useFlagsClient());
  return null;
}

describe('FlagsProvider with options', () => {
  it('creates one client, serves its bootstrap at once and closes it on unmount', async () => {
    const { options, requests } = hangingOptions();
    const seen: FlagsClient[] = [];
    const counts: RenderCounts = {};
    const view = render(
      <FlagsProvider options={options}>
        <FlagText flag="a" counts={counts} />
        <ClientProbe seen={seen} />
      </FlagsProvider>,
    );
    await flushMicrotasks();
    expect(text('a')).toBe('"a1"');
    expect(created).toHaveLength(1);
    expect(new Set(seen)).toEqual(new Set(created));
    expect(connections()).toEqual(['polling']);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.signal.aborted).toBe(false);

    view.unmount();
    expect(connections()).toEqual(['stopped']);
    expect(requests.every((request) => request.signal.aborted)).toBe(true);
  });

  it('under StrictMode ends with exactly one open client, the one the hooks read, and closes it on unmount', async () => {
    const { options, requests } = hangingOptions();
    const seen: FlagsClient[] = [];
    const counts: RenderCounts = {};
    const view = render(
      <StrictMode>
        <FlagsProvider options={options}>
          <FlagText flag="a" counts={counts} />
          <ClientProbe seen={seen} />
        </FlagsProvider>
      </StrictMode>,
    );
    await flushMicrotasks();
    const open = created.filter((client) => client.getStatus().connection !== 'stopped');
    expect(open).toHaveLength(1);
    // The first client was closed by StrictMode's simulated unmount and is not reused.
    expect(created.length).toBeLessThanOrEqual(2);
    expect(seen.at(-1)).toBe(open[0]);
    // Only the open client's request is still in flight.
    expect(requests.filter((request) => !request.signal.aborted)).toHaveLength(1);

    // The hooks are subscribed to the open client: a change reaches them.
    act(() => open[0]!.setOverrides({ a: 'qa' }));
    expect(text('a')).toBe('"qa"');

    view.unmount();
    expect(connections().every((connection) => connection === 'stopped')).toBe(true);
    expect(requests.every((request) => request.signal.aborted)).toBe(true);
  });

  it('adopts the client of a mount React threw away and retried (Suspense) instead of leaking it', async () => {
    const { options, requests } = hangingOptions();
    let resolve!: () => void;
    const pending = new Promise<void>((done) => (resolve = done));
    function Suspender() {
      use(pending);
      return null;
    }
    const counts: RenderCounts = {};
    // An async act, so that React retries the suspended mount once the promise settles.
    let view!: ReturnType<typeof render>;
    await act(async () => {
      view = render(
        <Suspense fallback={<span data-testid="loading" />}>
          <FlagsProvider options={options}>
            <Suspender />
            <FlagText flag="a" counts={counts} />
          </FlagsProvider>
        </Suspense>,
      );
    });
    expect(screen.getByTestId('loading')).toBeTruthy();
    await act(async () => resolve());
    expect(text('a')).toBe('"a1"');
    expect(created).toHaveLength(1);
    expect(connections()).toEqual(['polling']);
    view.unmount();
    expect(connections()).toEqual(['stopped']);
    await flushMicrotasks();
    expect(requests.every((request) => request.signal.aborted)).toBe(true);
  });

  it('keeps its client and never re-renders flag readers when it re-renders with new options', async () => {
    const counts: RenderCounts = {};
    let rerender!: () => void;
    // `children` keeps its identity when App re-renders, as it does under a layout.
    function App({ children }: { children: ReactNode }) {
      const [, setTick] = useState(0);
      rerender = () => setTick((tick) => tick + 1);
      // A new options object on every render, as an inline literal would be.
      return <FlagsProvider options={{ ...hangingOptions().options }}>{children}</FlagsProvider>;
    }
    render(
      <App>
        <FlagText flag="a" counts={counts} />
      </App>,
    );
    act(() => rerender());
    act(() => rerender());
    expect(created).toHaveLength(1);
    expect(counts).toEqual({ a: 1 });
  });

  it('gives two providers sharing one options object a client each', async () => {
    const { options } = hangingOptions();
    const first: FlagsClient[] = [];
    const second: FlagsClient[] = [];
    const view = render(
      <>
        <FlagsProvider options={options}>
          <ClientProbe seen={first} />
        </FlagsProvider>
        <FlagsProvider options={options}>
          <ClientProbe seen={second} />
        </FlagsProvider>
      </>,
    );
    const [a, b] = [first.at(-1)!, second.at(-1)!];
    expect(a).not.toBe(b);
    expect([a.getStatus().connection, b.getStatus().connection]).toEqual(['polling', 'polling']);
    view.unmount();
    expect(connections().every((connection) => connection === 'stopped')).toBe(true);
  });

  it('passes on the ConfigError of invalid options', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<FlagsProvider options={{ sdkKey: 'nope', baseUrl: BASE_URL }} />)).toThrow(/sdkKey/);
    errors.mockRestore();
  });
});

describe('FlagsProvider with a client', () => {
  it('uses the client as given and leaves it open on unmount: the app owns it', async () => {
    const server = snapshotServer(snapshotV(1));
    const fake = createFakeTransport(server.handler);
    const { createClient } = await import('../../src/index');
    const client = createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: fake.transport, ...QUIET });
    await client.ready();
    const seen: FlagsClient[] = [];
    const view = render(
      <FlagsProvider client={client}>
        <ClientProbe seen={seen} />
      </FlagsProvider>,
    );
    expect(seen).toEqual([client]);
    view.unmount();
    expect(client.getStatus().connection).toBe('polling');
    await client.close();
  });

  it('follows a new client given to it: readers re-read and re-subscribe', async () => {
    const { createClient } = await import('../../src/index');
    const make = (value: string) =>
      createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: createFakeTransport(() => 'hang').transport, bootstrap: snapshotV(1, { a: value }), ...QUIET });
    const [first, second] = [make('first'), make('second')];
    const counts: RenderCounts = {};
    const tree = (client: FlagsClient) => (
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
      </FlagsProvider>
    );
    const view = render(tree(first));
    view.rerender(tree(second));
    expect(text('a')).toBe('"second"');
    act(() => first.setOverrides({ a: 'stale' }));
    act(() => second.setOverrides({ a: 'fresh' }));
    expect(text('a')).toBe('"fresh"');
    view.unmount();
    await Promise.all([first.close(), second.close()]);
  });
});

describe('<Activity> hiding and showing a provider that owns its client', () => {
  it('hiding closes the client; showing again serves a fresh one that the hooks follow, with one listener per hook', async () => {
    const options = hangingClientOptions();
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

describe('two providers nested', () => {
  function Probe({ id, seen }: { id: string; seen: Record<string, FlagsClient> }) {
    seen[id] = useFlagsClient();
    return <span data-testid={id}>{useFlag('a', 'fb')}</span>;
  }

  it('the inner provider wins below it; a change on either client re-renders only its own readers', async () => {
    const outer = await hangingClientFrom(snapshotV(1, { a: 'outer' }));
    const inner = await hangingClientFrom(snapshotV(1, { a: 'inner' }));
    const counts: RenderCounts = {};
    const seen: Record<string, FlagsClient> = {};
    function Counted({ id }: { id: string }) {
      counts[id] = (counts[id] ?? 0) + 1;
      return <Probe id={id} seen={seen} />;
    }
    render(
      <FlagsProvider client={outer}>
        <Counted id="above" />
        <FlagsProvider client={inner}>
          <Counted id="below" />
        </FlagsProvider>
      </FlagsProvider>,
    );
    expect([text('above'), text('below')]).toEqual(['outer', 'inner']);
    expect(seen).toEqual({ above: outer, below: inner });
    act(() => outer.setOverrides({ a: 'outer-2' }));
    expect([text('above'), text('below')]).toEqual(['outer-2', 'inner']);
    act(() => inner.setOverrides({ a: 'inner-2' }));
    expect([text('above'), text('below')]).toEqual(['outer-2', 'inner-2']);
    expect(counts).toEqual({ above: 1, below: 1 });
  });

  it('nested providers given the same options object end with one open client each, each read by its own subtree', async () => {
    const options: ClientOptions = {
      sdkKey: CLIENT_KEY,
      baseUrl: BASE_URL,
      transport: createFakeTransport(() => 'hang').transport,
      bootstrap: snapshotV(1),
      ...QUIET,
    };
    const seen: Record<string, FlagsClient> = {};
    const view = render(
      <FlagsProvider options={options}>
        <Probe id="above" seen={seen} />
        <FlagsProvider options={options}>
          <Probe id="below" seen={seen} />
        </FlagsProvider>
      </FlagsProvider>,
    );
    await act(async () => {});
    expect(seen.above).not.toBe(seen.below);
    expect([seen.above!.getStatus().connection, seen.below!.getStatus().connection]).toEqual(['polling', 'polling']);
    expect(created.filter((client) => client.getStatus().connection !== 'stopped')).toHaveLength(2);
    act(() => seen.below!.setOverrides({ a: 'below only' }));
    expect([text('above'), text('below')]).toEqual(['a1', 'below only']);
    view.unmount();
    expect(created.every((client) => client.getStatus().connection === 'stopped')).toBe(true);
  });
});
