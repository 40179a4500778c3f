import { afterEach, describe, expect, it, vi } from 'vitest';
import { snapshotOf } from '../helpers/snapshots';
import { connectedFrame } from '../stream/harness';
import { connectClient, streamingClient } from '../helpers/streaming-client';
import { HttpError } from '../../src/shared/errors';
import { response } from '../helpers/fake-transport';
import { harness, servedHarness } from '../helpers/client-harness';
import type { ClientStatus } from '../../src/machine/client-state';
import type { HttpRequest } from '../../src/http/http-types';
import { byPlan, fakeDataPlane } from '../helpers/events-server';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();
const isSnapshot = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/snapshot';

describe('close() from inside a stream-driven callback', () => {
  it('from onError on a 4400: the pending reconnect is cancelled, nothing is left', async () => {
    const h = streamingClient({ onError: () => void h.client.close() });
    await connectClient(h);
    h.sockets.last.serverClose(4400, 'bad subscribe');
    expect(h.client.getStatus().connection).toBe('stopped');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(h.sockets.sockets).toHaveLength(1);
  });

  it('from a listener hearing streaming: the socket is closed with 1000 and nothing is left', async () => {
    const h = streamingClient();
    await h.client.ready();
    h.client.subscribe(({ status }) => {
      if (status.connection === 'streaming') void h.client.close();
    });
    h.sockets.last.open();
    h.sockets.last.receive(connectedFrame());
    expect(h.client.getStatus().connection).toBe('stopped');
    expect(h.sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    // The subscribe of that step may still go out (it was decided before the callback); nothing after.
    const sent = h.sockets.last.sent.length;
    h.sockets.last.receive({ type: 'ping', ts: 1 });
    expect(h.sockets.last.sent).toHaveLength(sent);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(h.sockets.sockets).toHaveLength(1);
  });

  it('from a listener hearing the refetched snapshot of a snapshot.updated: nothing is left', async () => {
    const h = streamingClient();
    await connectClient(h);
    h.client.get('a');
    h.client.subscribe(({ changed }) => {
      if (changed.size > 0) void h.client.close();
    });
    h.server.publish(snapshotOf(2, { a: 2 }));
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.client.get('a')).toBe(2);
    expect(h.client.getStatus().connection).toBe('stopped');
    expect(h.sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('re-entrant calls from listeners and onError', () => {
  it('close() from a subscribe listener leaves no timer behind (no poll is armed after close)', async () => {
    const { client, requests } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 30_000 });
    client.subscribe(() => void client.close());
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    expect(requests).toHaveLength(1);
    // close() promises: "Clears every timer". The poll armed after it fires into a stopped machine.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('close() from onError (say on a 401) leaves no retry timer behind', async () => {
    let client!: ReturnType<typeof harness>['client'];
    const h = harness(() => response(401, '{"error":{"code":"unauthorized","message":"bad key"}}'), {
      onError: (error) => {
        if (error instanceof HttpError && error.status === 401) void client.close();
      },
    });
    client = h.client;
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('listeners that unsubscribe themselves or subscribe others during emit: each hears what it should, once', async () => {
    const { client, errors, server } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 1000 });
    const calls: string[] = [];
    const unsubscribeOnce = client.subscribe(() => {
      calls.push('once');
      unsubscribeOnce();
    });
    client.subscribe(() => {
      calls.push('adder');
      if (calls.filter((call) => call === 'adder').length === 1) client.subscribe(() => calls.push('late'));
    });
    await vi.advanceTimersByTimeAsync(0);
    // The listener added during the emit hears from the next change on.
    expect(calls).toEqual(['once', 'adder']);
    server.publish(snapshotOf(2, { a: 2 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toEqual(['once', 'adder', 'adder', 'late']);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a listener that calls refresh() on every change causes no extra poll loop', async () => {
    const { client, requests } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 1000 });
    client.subscribe(() => void client.refresh());
    await vi.advanceTimersByTimeAsync(0);
    // The first snapshot notifies, the refresh answers 304 and notifies nobody.
    expect(requests).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(3);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('re-entrancy from listeners and onError', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
  it('close() from one listener: the next listener does not hear the pre-close change after `stopped`', async () => {
    // Was a bug: docs/client.md, close(): "drops every listener" and is "Safe from inside a listener";
    // subscribe: "`listener({ changed, status })` on every change". subscribable.ts emits to a
    // copy of the listener set, so when listener A calls close(), the nested emit of `stopped`
    // reaches B first and then B still hears the outer, older event (status `ready` /
    // `polling`) after close() returned. A consumer keeping `event.status` ends with a status
    // that is no longer true, and a listener runs after the client dropped it. Fix: in emit,
    // skip listeners no longer in the set (`if (listeners.has(listener))`), which also makes an
    // unsubscribe during emit take effect at once; or queue nested emits until the outer ends.
    const { client } = servedHarness(snapshotOf(1, { a: 1 }));
    client.subscribe(() => void client.close());
    const seen: ClientStatus[] = [];
    client.subscribe(({ status }) => seen.push(status));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    expect(seen.map((status) => status.connection)).toEqual(['stopped']);
  });

  it('a listener that calls setContext(), setOverrides() and getAll() mid-notification reads consistent values', async () => {
    const { client, errors } = servedHarness({ ...snapshotOf(1, { a: 'x' }), flags: { pro: byPlan('pro'), a: snapshotOf(1, { a: 'x' }).flags.a! } }, { pollInterval: 1000 });
    const log: Array<{ changed: string[]; pro: unknown; b: unknown; all: unknown; status: string }> = [];
    let once = true;
    // Read before the snapshot arrives: both change when it does.
    client.get('a');
    client.get('pro');
    client.subscribe(({ changed }) => {
      log.push({ changed: [...changed].sort(), pro: client.get('pro'), b: client.get('b'), all: client.getAll(), status: client.getStatus().status });
      if (once) {
        once = false;
        client.setContext({ attributes: { plan: 'pro' } });
        client.setOverrides({ b: 'override' });
      }
    });
    await client.ready();
    // The first change, then the two nested ones, each heard once; every read inside is current.
    expect(log.map((entry) => entry.changed)).toEqual([['a', 'pro'], ['pro'], ['b']]);
    expect(log.map((entry) => [entry.pro, entry.b])).toEqual([
      ['no', undefined],
      ['yes', undefined],
      ['yes', 'override'],
    ]);
    expect(log.map((entry) => entry.all)).toEqual([{ a: 'x', pro: 'no' }, { a: 'x', pro: 'yes' }, { a: 'x', pro: 'yes', b: 'override' }]);
    expect(log.every((entry) => entry.status === 'ready')).toBe(true);
    expect(client.getAll()).toBe(log[2]!.all);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('an onError that calls identify(), refresh(), flush() and setOverrides() on a failed fetch: one retry timer at most, no request storm', async () => {
    const plane = fakeDataPlane(snapshotOf(1, { a: 1 }));
    let down = true;
    let client!: ReturnType<typeof harness>['client'];
    let calls = 0;
    const h = harness((request) => (down && isSnapshot(request) ? response(503, '') : plane.handler(request)), {
      events: true,
      flushInterval: 0,
      pollInterval: 30_000,
      onError: () => {
        calls++;
        void client.identify(`u-${calls}`);
        // Once: an app that refreshes on every failure of a server that fails at once asks for a hot loop.
        if (calls === 1) void client.refresh();
        void client.flush();
        client.setOverrides({ o: calls });
      },
    });
    client = h.client;
    await vi.advanceTimersByTimeAsync(0);
    // The first failure's onError refreshed at once; that fetch failed too. One retry timer waits, beside the ready timeout.
    const snapshotRequests = () => h.requests.filter(isSnapshot).length;
    expect({ snapshots: snapshotRequests(), calls, timers: vi.getTimerCount() }).toEqual({ snapshots: 2, calls: 2, timers: 2 });
    expect(h.client.get('o')).toBe(2);
    expect(h.client.getContext().userId).toBe('u-2');
    down = false;
    // Backoff after two failures: 2 s (jitter 0).
    await vi.advanceTimersByTimeAsync(1999);
    expect(snapshotRequests()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(snapshotRequests()).toBe(3);
    expect(h.client.get('a')).toBe(1);
    expect(h.client.getStatus()).toMatchObject({ status: 'ready', error: null });
    // Once up: one poll armed, nothing else.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(snapshotRequests()).toBe(4);
    await h.client.close();
    expect(vi.getTimerCount()).toBe(0);
    // Nothing onError queued was lost: both identify events, and the two error events.
    const sent = plane.events;
    expect(sent.filter((event) => event.type === 'identify').map((event) => event.userId)).toEqual(['u-1', 'u-2']);
    expect(sent.filter((event) => event.type === 'error')).toHaveLength(2);
  });
});
