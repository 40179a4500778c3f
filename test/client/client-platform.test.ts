import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectedFrame, createFakeTransport as createFakeSockets } from '../stream/harness';
import { connectClient, streamingClient } from '../helpers/streaming-client';
import type { HttpResult } from '../../src/http/http-types';
import type { OnlineSource, VisibilitySource } from '../../src/platform/index';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { jsonResponse, snapshotServer } from '../helpers/fake-transport';
import { harness, servedHarness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { switchableSource } from '../helpers/platform-source';
import { trackSettlements } from '../helpers/settlements';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

const source = switchableSource;

describe('the stream with network and visibility flapping', () => {
  it('offline/online and hidden/visible ten times while connecting: at most one socket open, each dropped one closed once with 1000', async () => {
    const h = streamingClient();
    await h.client.ready();
    for (let i = 0; i < 10; i++) {
      h.page.set(false);
      h.net.set(false);
      h.page.set(true);
      h.net.set(true);
    }
    await vi.advanceTimersByTimeAsync(0);
    const open = h.sockets.sockets.filter((socket) => socket.closeCalls.length === 0);
    expect(open).toEqual([h.sockets.last]);
    expect(h.sockets.sockets.slice(0, -1).every((socket) => socket.closeCalls.length === 1 && socket.closeCalls[0]?.code === 1000)).toBe(true);
    expect(h.sockets.sockets).toHaveLength(11);
    expect(h.client.getStatus().connection).toBe('connecting');
    // The last socket still works, and the dropped ones are ignored.
    for (const socket of h.sockets.sockets.slice(0, -1)) socket.receive(connectedFrame());
    expect(h.sockets.sockets.slice(0, -1).every((socket) => socket.sent.length === 0)).toBe(true);
    h.sockets.last.open();
    h.sockets.last.receive(connectedFrame());
    expect(h.client.getStatus().connection).toBe('streaming');
    await h.client.close();
    expect(h.sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(vi.getTimerCount()).toBe(0);
    expect(h.net.listeners.size + h.page.listeners.size).toBe(0);
  });

  it('hidden while streaming keeps the socket; offline during a reconnect wait cancels the wait', async () => {
    const h = streamingClient();
    await connectClient(h);
    h.page.set(false);
    expect(h.sockets.last.closeCalls).toEqual([]);
    expect(h.client.getStatus().connection).toBe('streaming');
    h.sockets.last.serverClose(1006);
    expect(h.client.getStatus().connection).toBe('reconnecting');
    h.net.set(false);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(h.sockets.sockets).toHaveLength(1);
    h.net.set(true);
    expect(h.sockets.sockets).toHaveLength(2);
    await h.client.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('platform sources', () => {
  it('a source that reports its current state synchronously on subscribe does not crash createClient', () => {
    // Before the fix: ReferenceError "Cannot access 'activity' before initialization" out of createClient.
    const eager: OnlineSource = {
      isOnline: () => true,
      // Observable-style sources (a store with fireImmediately, a BehaviorSubject) call back at once.
      subscribe: (onChange) => (onChange(true), () => undefined),
    };
    let client: ReturnType<typeof harness>['client'] | undefined;
    expect(() => (client = harness(() => 'hang', { onlineSource: eager }).client)).not.toThrow();
    void client?.close();
  });

  it('going hidden/visible and offline/online repeatedly while a fetch is in flight: one request, never aborted, one poll after it', async () => {
    let answer!: (reply: HttpResult) => void;
    const visible = source(true);
    const online = source(true);
    const { client, requests, errors } = harness(() => new Promise<HttpResult>((resolve) => (answer = resolve)), {
      pollInterval: 1000,
      visibilitySource: visible.visibility,
      onlineSource: online.online,
      readyTimeout: 0,
    });
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 5; i++) {
      visible.set(false);
      visible.set(true);
      online.set(false);
      online.set(true);
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.signal.aborted).toBe(false);
    answer(jsonResponse(200, snapshotOf(1, { a: 1 }), { etag: '"snapshot-1"' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe(1);
    // The request timeout is cleared; only the next poll is armed.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('close() from a listener hearing `connecting` leaves no socket open (none is opened after close)', async () => {
    const net = source(false);
    const sockets = createFakeSockets();
    const { client } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, {
      onlineSource: net.online,
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(sockets.transport),
    });
    // An app that tears down its flag provider on a status change (an unmount, a route change).
    client.subscribe(({ status }) => {
      if (status.connection === 'connecting') void client.close();
    });
    net.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    // Every socket opened must have been closed, and no stream timer may remain.
    expect(sockets.sockets.filter((socket) => socket.closeCalls.length === 0)).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an unsubscribe of a platform source that throws does not make close() reject or skip its cleanup', async () => {
    const visibility: VisibilitySource = {
      isVisible: () => true,
      subscribe: () => () => {
        throw new Error('subscription already removed');
      },
    };
    const { client, requests } = harness(() => 'hang', { visibilitySource: visibility });
    const seen = trackSettlements(client.ready());
    const closed = await client.close().then(
      () => 'resolved',
      (error: unknown) => `rejected: ${(error as Error).message}`,
    );
    await vi.advanceTimersByTimeAsync(0);
    // Before the fix: close() rejects, the request is not aborted, its timeout stays armed, and ready()
    // never settles (the resolve-ready effect comes after the throwing stop effect).
    expect(closed).toBe('resolved');
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(seen).toEqual([{ status: 'closed', source: null }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refresh() while offline makes no request ("No request while offline")', async () => {
    const online = source(false);
    const { client, requests } = harness(() => 'hang', { onlineSource: online.online });
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(0);
    void client.refresh();
    await vi.advanceTimersByTimeAsync(0);
    const made = requests.length;
    await client.close();
    expect(made).toBe(0);
  });
});

describe('refresh() and the platform', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
  it('refresh() while offline resolves at once, even with a fetch from before going offline still in flight', async () => {
    // Was a bug: docs/client.md, refresh(): "Offline (with `pauseWhenOffline`) it makes no request and
    // resolves at once". client.ts refresh() returns fetched(), which waits for the fetch in
    // flight (going offline does not abort it), so a pull-to-refresh offline spins until that
    // request ends, up to `requestTimeout` (10 s here). Fix: in refresh(), when the activity is
    // `offline` (after dispatching), return Promise.resolve().
    const net = source(true);
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    let hang = false;
    const { client } = harness((request) => (hang ? 'hang' : server.handler(request)), {
      pollInterval: 1000,
      requestTimeout: 10_000,
      onlineSource: net.online,
    });
    await client.ready();
    hang = true;
    await vi.advanceTimersByTimeAsync(1000);
    net.set(false);
    let settled = false;
    void client.refresh().then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    const atOnce = settled;
    await client.close();
    expect(atOnce).toBe(true);
  });

  it('offline, then a refresh() storm, then online: no request while offline, one fetch on return, every refresh() settles', async () => {
    const net = source(true);
    const { client, requests, errors, server } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 60_000, onlineSource: net.online });
    await client.ready();
    net.set(false);
    server.publish(snapshotOf(2, { a: 2 }));
    const settled: number[] = [];
    const storm = Array.from({ length: 20 }, (_, i) => client.refresh().then(() => settled.push(i)));
    await Promise.all(storm);
    expect(settled).toHaveLength(20);
    expect(requests).toHaveLength(1);
    net.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(2);
    expect(client.get('a')).toBe(2);
    // One poll armed, nothing else.
    expect(vi.getTimerCount()).toBe(1);
    expect(errors).toEqual([]);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a refresh() storm online: one snapshot applied, one notification, the aborted requests not reported, one poll timer', async () => {
    const { client, requests, errors, server } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 60_000 });
    await client.ready();
    client.get('a');
    server.publish(snapshotOf(2, { a: 2 }));
    const heard: string[][] = [];
    client.subscribe(({ changed }) => heard.push([...changed]));
    await Promise.all(Array.from({ length: 10 }, () => client.refresh()));
    expect(requests).toHaveLength(11);
    expect(requests.slice(1, -1).every((request) => request.signal.aborted)).toBe(true);
    expect(heard).toEqual([['a']]);
    expect(errors).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    await client.close();
  });
});
