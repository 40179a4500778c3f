// @vitest-environment happy-dom
import { act, render } from '@testing-library/react';
import { StrictMode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlags, useFlagsStatus } from '../../react/index';
import type { FlagsClient } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { FlagText, QUIET, snapshotV, type RenderCounts, text, hangingClientServing, hangingClientOptions, useAutoCleanup } from './fixtures';
import { created, listeners } from './created-clients';

vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

useAutoCleanup(created);

describe('subscriptions: nothing leaks', () => {
  it('a new client prop drops every subscription on the old client and serves no stale value', async () => {
    const [first, second] = [await hangingClientServing({ a: 'first' }), await hangingClientServing({ a: 'second' })];
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
    const client = await hangingClientServing();
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
    const options = hangingClientOptions();
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
    const given = await hangingClientServing();
    const options = hangingClientOptions();
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
