// @vitest-environment happy-dom
import { act, render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FlagsProvider, useFlag, useFlagDetails, useFlags, useFlagsClient, useFlagsStatus } from '../../react/index';
import type { FlagsClient, FlagSnapshot } from '../../src/index';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { AllFlags, DetailsText, FlagText, QUIET, snapshotV, StatusText, useAutoCleanup, type RenderCounts, text, hangingClientServing, captureErrors, hangingClientFrom } from './fixtures';
import { StrictMode, useState } from 'react';
import { created, listeners } from './created-clients';

// Records every client created through the core: the ones a provider creates are closed after each test too.
vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));

const clients: FlagsClient[] = [];
useAutoCleanup(clients, created);

/** A live client on a fake snapshot server, already holding `initial` (snapshot version 1 by default). */
async function liveClient(initial: FlagSnapshot = snapshotV(1)) {
  const server = snapshotServer(initial);
  const h = harness(server.handler, QUIET);
  clients.push(h.client);
  await h.client.ready();
  return { ...h, server };
}

function DetailsLine({ id, flag, fallback }: { id: string; flag: string; fallback: string }) {
  const { value, reason, version, errorCode } = useFlagDetails(flag, fallback);
  return <span data-testid={id}>{`${value}/${reason}/v${version}/${errorCode ?? '-'}`}</span>;
}

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

describe('useFlag with props that change between renders', () => {
  it('a key that changes moves the one subscription: the old key no longer re-renders, the new one does', async () => {
    const client = await hangingClientServing();
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
    const client = await hangingClientServing();
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
    const client = await hangingClientServing();
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
    const client = await hangingClientServing();
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

describe('getSnapshot is stable for an unchanged client', () => {
  it('every hook, before the first snapshot and with no fallback, renders without a getSnapshot warning under StrictMode', async () => {
    const server = snapshotServer(snapshotV(1));
    const { client } = harness(server.handler, { ...QUIET, defaults: { a: 'da', obj: { n: 1 } } });
    created.push(client);
    const errors = captureErrors();
    const counts: RenderCounts = {};
    function Everything() {
      counts.everything = (counts.everything ?? 0) + 1;
      const values = [useFlag('a'), useFlag('obj'), useFlag('nothing')];
      const details = [useFlagDetails('a'), useFlagDetails('nothing')];
      const all = useFlags();
      const status = useFlagsStatus();
      return <span data-testid="everything">{JSON.stringify([values, details.map((d) => d.errorCode), all, status.status])}</span>;
    }
    render(
      <StrictMode>
        <FlagsProvider client={client}>
          <Everything />
        </FlagsProvider>
      </StrictMode>,
    );
    expect(text('everything')).toBe('[["da",{"n":1},null],["PROVIDER_NOT_READY","PROVIDER_NOT_READY"],{"a":"da","obj":{"n":1}},"initializing"]');
    expect(counts.everything).toBe(2); // StrictMode's double render, no loop
    await act(() => client.ready());
    expect(JSON.parse(text('everything')!)[0]).toEqual(['a1', { n: 1 }, null]);
    expect(errors).not.toHaveBeenCalled();
  });
});

describe('useFlagDetails: what getSnapshot returns changes only when subscribe notifies', () => {
  // Was a bug: react/hooks.ts useFlagDetails subscribes with `changed.has(key)`, but the core leaves a
  // flag out of `changed` when only the snapshot version moved (flag-values.ts `differs`
  // ignores `version`), while getDetails then returns a new object carrying the new version.
  // The mounted reader is never told, so a sibling that renders for its own reason shows
  // another version of the same flag in the same commit: tearing between two readers.
  // docs/react.md: "useFlagDetails(key, fallback?) | { key, value, reason, variation, ruleId?,
  // version, errorCode? }" and "a change of one flag re-renders the components that read that
  // flag" — and useSyncExternalStore requires subscribe to fire whenever getSnapshot changes.
  it('two readers of one flag show the same version after a refresh that changed only the version', async () => {
    const { client, server } = await liveClient(snapshotV(1));
    let bump!: () => void;
    function Restless() {
      const [tick, setTick] = useState(0);
      bump = () => setTick((n) => n + 1);
      return (
        <>
          <i data-tick={tick} />
          <DetailsLine id="restless" flag="a" fallback="fb" />
        </>
      );
    }
    render(
      <FlagsProvider client={client}>
        <DetailsLine id="quiet" flag="a" fallback="fb" />
        <Restless />
      </FlagsProvider>,
    );
    expect(text('quiet')).toBe('a1/DEFAULT/v1/-');
    server.publish(snapshotV(2)); // same values, a new version
    await act(() => client.refresh());
    expect(client.getDetails('a', 'fb').version).toBe(2);
    act(() => bump());
    // One commit, one flag, two answers: restless says v2, quiet still says v1.
    expect(text('restless')).toBe('a1/DEFAULT/v2/-');
    expect(text('quiet')).toBe(text('restless'));
  });

  // Was a bug: the same gap for the default served before the first snapshot. Once the snapshot
  // arrives, getDetails('missing') says FLAG_NOT_FOUND (version 1), but `missing` is not in
  // `changed`, so a mounted reader keeps saying PROVIDER_NOT_READY for good.
  // docs/react.md: "useFlagDetails ... returns { key, value, reason, variation, ruleId?, version,
  // errorCode? }" — the errorCode a reader shows must be the client's current one.
  it('a reader of a missing flag stops reporting PROVIDER_NOT_READY once the client is ready', async () => {
    const server = snapshotServer(snapshotV(1));
    const { client } = harness(server.handler, QUIET);
    created.push(client);
    render(
      <FlagsProvider client={client}>
        <DetailsLine id="missing" flag="missing" fallback="fb" />
      </FlagsProvider>,
    );
    expect(text('missing')).toBe('fb/ERROR/vnull/PROVIDER_NOT_READY');
    await act(() => client.ready());
    expect(client.getDetails('missing', 'fb').errorCode).toBe('FLAG_NOT_FOUND');
    expect(text('missing')).toBe('fb/ERROR/v1/FLAG_NOT_FOUND');
  });
});

describe('hooks reading a client that is closed', () => {
  // Was a bug: close() drops every listener (src/client.ts `stop` → listeners.clear()), yet
  // setOverrides / setContext still change what reads answer afterwards, and subscribe() still
  // adds listeners. Readers mounted before close never hear of the change; a reader mounted
  // after close does. Two readers of one flag then disagree in the same commit.
  // docs/react.md: "useFlag(key, fallback?) | the value, as client.get(key, fallback) | that
  // flag's value changes" (re-renders when), and docs/client.md close(): "Reads keep answering
  // from the last snapshot."
  it('after close, a reader mounted before and one mounted after show the same value of a flag', async () => {
    const client = await hangingClientFrom();
    let showLate!: () => void;
    function Late() {
      const [shown, setShown] = useState(false);
      showLate = () => setShown(true);
      return shown ? <Reader id="late" /> : null;
    }
    function Reader({ id }: { id: string }) {
      return <span data-testid={id}>{useFlag('a', 'fb')}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Reader id="early" />
        <Late />
      </FlagsProvider>,
    );
    await act(() => client.close());
    act(() => showLate());
    act(() => client.setOverrides({ a: 'after-close' }));
    expect(text('late')).toBe(client.get('a', 'fb'));
    expect(text('early')).toBe(text('late'));
  });

  it('a closed client is readable by every hook without a warning and re-renders nobody on mount', async () => {
    const client = await hangingClientFrom();
    await client.close();
    const errors = captureErrors();
    const counts: RenderCounts = {};
    function Everything() {
      counts.all = (counts.all ?? 0) + 1;
      const value = useFlag('a', 'fb');
      const details = useFlagDetails('missing', 'fb');
      const flags = useFlags();
      const { connection } = useFlagsStatus();
      return <span data-testid="everything">{`${value} ${details.errorCode} ${flags.b} ${connection}`}</span>;
    }
    render(
      <FlagsProvider client={client}>
        <Everything />
      </FlagsProvider>,
    );
    expect(text('everything')).toBe('a1 FLAG_NOT_FOUND b1 stopped');
    expect(counts.all).toBe(1);
    expect(errors).not.toHaveBeenCalled();
  });
});

describe('useFlags and useFlagsStatus re-render counts', () => {
  it('a refresh that moves only the version re-renders the status panel once and the flags panel never; a 304 re-renders neither', async () => {
    const { client, server } = await liveClient(snapshotV(1));
    const counts: RenderCounts = {};
    render(
      <FlagsProvider client={client}>
        <AllFlags counts={counts} />
        <StatusText counts={counts} />
      </FlagsProvider>,
    );
    const allBefore = text('all');
    server.publish(snapshotV(2));
    await act(() => client.refresh());
    expect(text('status')).toBe('ready/polling/network/2');
    expect(counts).toEqual({ all: 1, status: 2 });
    expect(text('all')).toBe(allBefore);

    // Same state again (a 304): nobody re-renders.
    await act(() => client.refresh());
    expect(counts).toEqual({ all: 1, status: 2 });
  });
});
