// @vitest-environment happy-dom
import { act, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlag, useFlagDetails, useFlags, useFlagsClient, useFlagsStatus } from '../../react/index';
import type { FlagsClient } from '../../src/index';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { AllFlags, DetailsText, FlagText, QUIET, snapshotV, StatusText, useAutoCleanup, type RenderCounts } from './fixtures';

// Records every client created through the core: the ones a provider creates are closed after each test too.
vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

const clients: FlagsClient[] = [];
useAutoCleanup(clients);

/** A live client on a fake snapshot server, already holding snapshot version 1. */
async function liveClient() {
  const server = snapshotServer(snapshotV(1));
  const h = harness(server.handler, QUIET);
  clients.push(h.client);
  await h.client.ready();
  return { ...h, server };
}

const text = (testId: string) => screen.getByTestId(testId).textContent;

describe('useFlag', () => {
  it('serves the fallback before the first snapshot, then the served value', async () => {
    const server = snapshotServer(snapshotV(1));
    const { client } = harness(server.handler, QUIET);
    clients.push(client);
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="a" fallback="waiting" counts={counts} />
      </FlagsProvider>,
    );
    expect(text('a')).toBe('"waiting"');
    await act(() => client.ready());
    expect(text('a')).toBe('"a1"');
  });

  it('updates after a new snapshot is fetched', async () => {
    const { client, server } = await liveClient();
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
      </FlagsProvider>,
    );
    expect(text('a')).toBe('"a1"');
    server.publish(snapshotV(2, { a: 'a2' }));
    await act(() => client.refresh());
    expect(text('a')).toBe('"a2"');
  });

  it('re-renders only the readers of the flag that changed', async () => {
    const { client, server } = await liveClient();
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
        <FlagText flag="b" counts={counts} />
        <FlagText flag="c" counts={counts} />
      </FlagsProvider>,
    );
    expect(counts).toEqual({ a: 1, b: 1, c: 1 });

    server.publish(snapshotV(2, { b: 'b2' }));
    await act(() => client.refresh());
    expect(text('b')).toBe('"b2"');
    expect(counts).toEqual({ a: 1, b: 2, c: 1 });

    // A new version whose values are all unchanged re-renders nobody.
    server.publish(snapshotV(3, { b: 'b2' }));
    await act(() => client.refresh());
    expect(client.getStatus().version).toBe(3);
    expect(counts).toEqual({ a: 1, b: 2, c: 1 });
  });

  it('does not even read the flags of other readers when one flag changes', async () => {
    const { client } = await liveClient();
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="a" counts={counts} />
        <FlagText flag="b" counts={counts} />
      </FlagsProvider>,
    );
    const get = vi.spyOn(client, 'get');
    act(() => client.setOverrides({ a: 'qa' }));
    expect(text('a')).toBe('"qa"');
    expect(get.mock.calls.some(([key]) => key === 'a')).toBe(true);
    expect(get.mock.calls.filter(([key]) => key === 'b')).toEqual([]);
  });

  it('re-renders only the readers whose value setContext changed', async () => {
    const { client } = await liveClient();
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <FlagText flag="banner" counts={counts} />
        <FlagText flag="a" counts={counts} />
        <FlagText flag="b" counts={counts} />
      </FlagsProvider>,
    );
    expect(text('banner')).toBe('"everyone"');

    act(() => client.setContext({ userId: 'u1', attributes: { plan: 'pro' } }));
    expect(text('banner')).toBe('"pro"');
    expect(counts).toEqual({ banner: 2, a: 1, b: 1 });

    // Another context that serves the same values re-renders nobody.
    act(() => client.setContext({ userId: 'u2', attributes: { plan: 'pro' } }));
    expect(counts).toEqual({ banner: 2, a: 1, b: 1 });
  });

  it('keeps an object value from re-rendering while it is unchanged', async () => {
    const server = snapshotServer(snapshotV(1, { a: { limit: 3 } }));
    const { client } = harness(server.handler, QUIET);
    clients.push(client);
    await client.ready();
    const counts: RenderCounts = {};
    const seen: unknown[] = [];
    function Config() {
      counts.config = (counts.config ?? 0) + 1;
      const value = useFlag('a', { limit: 0 });
      seen.push(value);
      return <span data-testid="config">{JSON.stringify(value)}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Config />
      </FlagsProvider>,
    );
    server.publish(snapshotV(2, { a: { limit: 3 }, b: 'b2' }));
    await act(() => client.refresh());
    expect(counts.config).toBe(1);
    server.publish(snapshotV(3, { a: { limit: 4 }, b: 'b2' }));
    await act(() => client.refresh());
    expect(text('config')).toBe('{"limit":4}');
    expect(counts.config).toBe(2);
  });

  it('never throws for a read: unknown keys, odd keys and closed clients serve the fallback', async () => {
    const { client } = await liveClient();
    function Odd() {
      return <span data-testid="odd">{JSON.stringify([useFlag('__proto__', 'p'), useFlag('nope', 1), useFlag('toString')])}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Odd />
      </FlagsProvider>,
    );
    expect(text('odd')).toBe('["p",1,null]');
    await act(() => client.close());
    expect(text('odd')).toBe('["p",1,null]');
  });
});

describe('useFlagDetails', () => {
  it('serves the reason and follows overrides, re-rendering only for its own flag', async () => {
    const { client } = await liveClient();
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <DetailsText flag="a" fallback="fb" counts={counts} />
        <DetailsText flag="b" fallback="fb" counts={counts} />
      </FlagsProvider>,
    );
    expect(text('details:a')).toBe('"a1" DEFAULT -');
    act(() => client.setOverrides({ a: 'qa' }));
    expect(text('details:a')).toBe('"qa" OVERRIDE -');
    expect(counts).toEqual({ 'details:a': 2, 'details:b': 1 });
  });

  it('is stable for defaults served with an error (a new details object on every client read)', async () => {
    const { client } = await liveClient();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <DetailsText flag="missing" fallback="fb" counts={counts} />
        <DetailsText flag="a" fallback={42} counts={counts} />
      </FlagsProvider>,
    );
    expect(client.getDetails('missing', 'fb')).not.toBe(client.getDetails('missing', 'fb'));
    expect(text('details:missing')).toBe('"fb" ERROR FLAG_NOT_FOUND');
    expect(text('details:a')).toBe('42 ERROR TYPE_MISMATCH');
    // A status-only change notifies nobody of these keys; a change of another flag neither.
    act(() => client.setOverrides({ b: 'qa' }));
    expect(counts).toEqual({ 'details:missing': 1, 'details:a': 1 });
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });
});

describe('useFlags and useFlagsStatus', () => {
  it('useFlags re-renders on any flag change, never on a status-only change', async () => {
    const { client } = await liveClient();
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <AllFlags counts={counts} />
        <StatusText counts={counts} />
      </FlagsProvider>,
    );
    expect(JSON.parse(text('all')!)).toEqual({ a: 'a1', b: 'b1', c: 'c1', banner: 'everyone' });

    act(() => client.setOverrides({ c: 'qa' }));
    expect(JSON.parse(text('all')!)).toMatchObject({ c: 'qa' });
    expect(counts).toEqual({ all: 2, status: 1 });

    await act(() => client.close());
    expect(text('status')).toBe('ready/stopped/network/1');
    expect(counts).toEqual({ all: 2, status: 2 });
  });

  it('useFlagsStatus follows readiness from initializing to ready', async () => {
    const server = snapshotServer(snapshotV(4));
    const { client } = harness(server.handler, QUIET);
    clients.push(client);
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <StatusText counts={counts} />
      </FlagsProvider>,
    );
    expect(text('status')).toBe('initializing/polling/null/null');
    await act(() => client.ready());
    expect(text('status')).toBe('ready/polling/network/4');
  });

  it('useFlagsClient returns the provider client, for setContext and friends', async () => {
    const { client } = await liveClient();
    let seen: unknown;
    function Probe() {
      seen = useFlagsClient();
      return null;
    }
    render(
      <FlagsProvider client={client}>
        <Probe />
      </FlagsProvider>,
    );
    expect(seen).toBe(client);
  });
});

describe('outside a provider', () => {
  const cases: Array<[string, () => unknown]> = [
    ['useFlag', () => useFlag('a')],
    ['useFlagDetails', () => useFlagDetails('a')],
    ['useFlags', () => useFlags()],
    ['useFlagsStatus', () => useFlagsStatus()],
    ['useFlagsClient', () => useFlagsClient()],
  ];
  it.each(cases)('%s throws an error naming the provider', (name, hook) => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    function Orphan() {
      hook();
      return null;
    }
    expect(() => render(<Orphan />)).toThrow(`${name} must be used inside <FlagsProvider>`);
    errors.mockRestore();
  });
});
