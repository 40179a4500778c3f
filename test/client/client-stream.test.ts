import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client';
import { ConfigError } from '../../src/shared/errors';
import { StreamError } from '../../src/stream/stream-error';
import { defineStreamTransport, type StreamTransport } from '../../src/stream/stream-transport';
import { BASE_URL, CLIENT_KEY, harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { connectClient, streamingClient } from '../helpers/streaming-client';
import { createFakeTransport as createFakeSockets, connectedFrame, createFakeTransport } from '../stream/harness';
import { snapshotServer, response, type Reply } from '../helpers/fake-transport';
import type { HttpRequest } from '../../src/http/http-types';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

describe('the client with a stream', () => {
  it('connects to {streamUrl}/sdk/v1/stream, subscribes with lastKnownVersion and reports its connection state', async () => {
    const h = streamingClient();
    expect(h.client.getStatus().connection).toBe('connecting');
    await connectClient(h);
    expect(h.sockets.last.url).toBe('wss://stream.test/sdk/v1/stream');
    expect(h.sockets.last.sent).toEqual([{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 }]);
    expect(h.client.getStatus().connection).toBe('streaming');
    await h.client.close();
  });

  it('refetches with minVersion on snapshot.updated, without waiting for a poll', async () => {
    const h = streamingClient();
    await connectClient(h);
    h.server.publish(snapshotOf(2, { a: 2 }));
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    // In a header, not the query: every snapshot request has one URL (one preflight, one HTTP cache entry).
    expect(h.requests.at(-1)!.url).toBe(`${BASE_URL}/sdk/v1/snapshot`);
    expect(h.requests.at(-1)!.headers['flagplane-min-version']).toBe('2');
    expect(h.client.get('a')).toBe(2);
    await h.client.close();
  });

  it('a burst of ten notifications causes one fetch in flight, then one catch-up', async () => {
    const h = streamingClient();
    await connectClient(h);
    const before = h.requests.length;
    h.server.publish(snapshotOf(5, { a: 5 }));
    for (let version = 2; version <= 11; version++) h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.requests.length - before).toBe(1);
    h.server.publish(snapshotOf(11, { a: 11 }));
    await vi.advanceTimersByTimeAsync(250);
    expect(h.requests.length - before).toBe(2);
    expect(h.client.get('a')).toBe(11);
    await vi.advanceTimersByTimeAsync(5000);
    expect(h.requests.length - before).toBe(2);
    await h.client.close();
  });

  it('an edge that lags: retries after 250, 500, 1000 ms, then waits for the next poll or message', async () => {
    const h = streamingClient();
    await connectClient(h);
    const before = h.requests.length;
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 9 });
    await vi.advanceTimersByTimeAsync(0);
    const times = () => h.requests.length - before;
    expect(times()).toBe(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(times()).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(times()).toBe(3);
    await vi.advanceTimersByTimeAsync(1000);
    expect(times()).toBe(4);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(times()).toBe(4);
    await h.client.close();
  });

  it('a revoked key stops the stream, reports a StreamError, and polling goes on', async () => {
    const h = streamingClient();
    await connectClient(h);
    h.sockets.last.serverClose(4403, 'key revoked');
    expect(h.errors.at(-1)).toBeInstanceOf(StreamError);
    expect(h.client.getStatus().connection).toBe('polling');
    const sockets = h.sockets.sockets.length;
    const requests = h.requests.length;
    await vi.advanceTimersByTimeAsync(600_000);
    expect(h.sockets.sockets.length).toBe(sockets);
    expect(h.requests.length).toBe(requests + 1);
    await h.client.close();
  });

  it('a going-away close (1001): flags keep serving, the stream is back at once (random 0 here) with no error, and a version published meanwhile is fetched', async () => {
    const h = streamingClient();
    await connectClient(h);
    const requests = h.requests.length;
    h.sockets.last.serverClose(1001, 'going away');
    expect(h.client.getStatus().connection).toBe('reconnecting');
    expect(h.client.get('a')).toBe(1);
    // Published while the client had no stream.
    h.server.publish(snapshotOf(2, { a: 2 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(h.sockets.sockets).toHaveLength(2);
    h.sockets.last.open();
    h.sockets.last.receive(connectedFrame());
    expect(h.sockets.last.sent).toEqual([{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 }]);
    // The server answers a subscribe below its current version with snapshot.updated.
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.requests).toHaveLength(requests + 1);
    expect(h.client.get('a')).toBe(2);
    expect(h.client.getStatus().connection).toBe('streaming');
    expect(h.errors).toEqual([]);
    await h.client.close();
  });

  it('close() closes the socket with 1000 and cancels a pending reconnect', async () => {
    const h = streamingClient();
    await connectClient(h);
    h.sockets.last.serverClose(1001, 'going away');
    expect(h.client.getStatus().connection).toBe('reconnecting');
    await h.client.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(h.sockets.sockets).toHaveLength(1);
    expect(h.client.getStatus().connection).toBe('stopped');
  });

  it('close() while connected closes the socket with 1000', async () => {
    const h = streamingClient();
    await connectClient(h);
    await h.client.close();
    expect(h.sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('streamUrl without a transport, or of another scheme, is a configuration error', () => {
    expect(() => createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, streamUrl: 'wss://x.test' })).toThrow(ConfigError);
    expect(() => createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, streamUrl: 'ftp://x.test', streamTransport: defineStreamTransport(createFakeSockets().transport) })).toThrow(/streamUrl/);
  });
});

describe('the client after a stop for good (4401 / 4403)', () => {
  // Before the fix: stream-link.ts disconnect() forgets the stopped connection; the next connect() opens a new one.
  it.each([4401, 4403])('%i, then offline and online again: no new socket, and the status stays polling', async (code) => {
    const h = streamingClient();
    await connectClient(h);
    h.sockets.last.serverClose(code, 'the key is no good');
    expect(h.client.getStatus().connection).toBe('polling');
    h.net.set(false);
    await vi.advanceTimersByTimeAsync(0);
    const whileOffline = h.client.getStatus().connection;
    h.net.set(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect({ whileOffline, sockets: h.sockets.sockets.length, now: h.client.getStatus().connection }).toEqual({ whileOffline: 'polling', sockets: 1, now: 'polling' });
    await h.client.close();
  });
});

describe('a custom StreamTransport that throws', () => {
  const throwing: StreamTransport = {
    connect: () => {
      throw new Error('no socket on this platform');
    },
  };

  // Before the fix: stream-link.ts connect() calls transport.connect() unguarded, inside createClient's first dispatch.
  it('connect() throwing at start: createClient does not throw, the error goes to onError and polling goes on', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    let made: ReturnType<typeof harness> | undefined;
    let thrown: unknown;
    try {
      made = harness(server.handler, { streamUrl: 'https://stream.test', streamTransport: throwing, pollInterval: 1000 });
    } catch (cause) {
      thrown = cause;
    }
    expect(thrown).toBeUndefined();
    await made?.client.ready();
    expect(made?.client.get('a')).toBe(1);
    expect(made?.errors.map((error) => error.message).join()).toMatch(/no socket on this platform/);
    expect(made?.client.getStatus().connection).toBe('polling');
    await made?.client.close();
  });

  it('connect() throwing when back online: the online listener does not throw', async () => {
    let fail = false;
    const sockets = createFakeTransport();
    const inner = defineStreamTransport(sockets.transport);
    const h = streamingClient({
      streamTransport: {
        connect: (options) => {
          if (fail) throw new Error('no socket on this platform');
          return inner.connect(options);
        },
      },
    });
    await h.client.ready();
    h.net.set(false);
    fail = true;
    expect(() => h.net.set(true)).not.toThrow();
    // Reported, not swallowed, and the client polls without a stream.
    expect(h.errors.map((error) => error.message)).toContainEqual(expect.stringMatching(/no socket on this platform/));
    expect(h.client.getStatus().connection).toBe('polling');
    await h.client.close();
  });

  // Before the fix: only the stop effect (client.ts) guards stream.disconnect; the offline path does not.
  it('connection.close() throwing when going offline: the offline listener does not throw and the status still changes', async () => {
    const h = streamingClient({
      streamTransport: {
        connect: () => ({
          close: () => {
            throw new Error('already closed');
          },
        }),
      },
    });
    await h.client.ready();
    expect(() => h.net.set(false)).not.toThrow();
    expect(h.client.getStatus().connection).toBe('reconnecting');
    await h.client.close();
  });
});

describe('the client on a notification whose version is not a non-negative integer', () => {
  // protocol.md §3: the server answers a minVersion that is not a non-negative integer with 400.
  // Before the fix: the machine forwards any number (see above) and snapshotRequest puts it in the query as it is.
  it.each([
    ['snapshot.resync', -1],
    ['snapshot.resync', 2.5],
    ['snapshot.updated', 1e21],
  ])('%s with version %d: no snapshot request with an invalid minVersion', async (type, version) => {
    const h = streamingClient();
    await connectClient(h);
    const before = h.requests.length;
    h.sockets.last.receive({ type, environmentId: 'production', version });
    await vi.advanceTimersByTimeAsync(5000);
    const queries = h.requests.slice(before).map((request) => request.url.slice(`${BASE_URL}/sdk/v1/snapshot`.length));
    expect(queries.filter((query) => !/^(\?minVersion=\d+)?$/.test(query))).toEqual([]);
    await h.client.close();
  });
});

describe('two clients sharing one transport', () => {
  it('each gets its own socket; closing one leaves the other streaming and notified', async () => {
    const sockets = createFakeTransport();
    const transport = defineStreamTransport(sockets.transport);
    const one = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, { streamUrl: 'https://stream.test', streamTransport: transport, pollInterval: 600_000 });
    const twoServer = snapshotServer(snapshotOf(1, { a: 1 }));
    const two = harness(twoServer.handler, { streamUrl: 'https://stream.test', streamTransport: transport, pollInterval: 600_000 });
    await Promise.all([one.client.ready(), two.client.ready()]);
    expect(sockets.sockets).toHaveLength(2);
    const first = sockets.sockets[0]!;
    const second = sockets.sockets[1]!;
    for (const socket of [first, second]) {
      socket.open();
      socket.receive(connectedFrame());
    }
    await one.client.close();
    expect(first.closeCalls).toHaveLength(1);
    expect(second.closeCalls).toEqual([]);
    expect(two.client.getStatus().connection).toBe('streaming');
    twoServer.publish(snapshotOf(2, { a: 2 }));
    second.receive({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(two.client.get('a')).toBe(2);
    expect(one.client.getStatus().connection).toBe('stopped');
    await two.client.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the client on notifications it already has', () => {
  it('snapshot.updated for an older or the same version fetches nothing; a resync for an older one still refetches', async () => {
    const h = streamingClient();
    await connectClient(h);
    const before = h.requests.length;
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 0 });
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 1 });
    await vi.advanceTimersByTimeAsync(5000);
    expect(h.requests).toHaveLength(before);
    h.sockets.last.receive({ type: 'snapshot.resync', environmentId: 'production', version: 0, reason: 'operator' });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.requests).toHaveLength(before + 1);
    expect(h.client.get('a')).toBe(1);
    expect(h.errors).toEqual([]);
    await h.client.close();
  });
});

describe('Retry-After and the stream', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
  /** A streaming client on fake sockets whose snapshot route the test switches. */
  async function streamingClient() {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    let handler: (request: HttpRequest) => Reply = server.handler;
    const sockets = createFakeSockets();
    const h = harness((request) => handler(request), {
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(sockets.transport),
      pollInterval: 600_000,
    });
    await h.client.ready();
    sockets.last.open();
    sockets.last.receive(connectedFrame(60_000));
    return { ...h, server, sockets, setHandler: (next: typeof handler) => (handler = next) };
  }

  it('a snapshot.updated during a 429 Retry-After wait does not fetch before the server allows it', async () => {
    // Was a bug: docs/protocol.md §5: "A client honours `Retry-After` on 429 and 503"; docs/client.md:
    // "A `Retry-After` on 429 or 503 lengthens the delay." transition.ts `stream-notify` fetches
    // whenever `fetch === 'idle'`, which it is during a backoff wait, so every notification the
    // gateway broadcasts (to every client at once, exactly when the data plane is shedding load)
    // sends a request the server asked to be spared. Fix: keep the `Retry-After` deadline in the
    // state (e.g. `notBefore`) and, in `stream-notify`, only raise `wanted` while it is in the
    // future; the armed `poll-due` then fetches with `minVersion`.
    const h = await streamingClient();
    h.setHandler(() => response(429, '{"error":{"code":"rate_limited","message":"slow down"}}', { 'retry-after': '120' }));
    h.sockets.last.receive({ type: 'snapshot.updated', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.requests).toHaveLength(2);
    expect(h.client.getStatus().error).toMatchObject({ status: 429 });
    // Ten seconds into the two-minute wait, the server publishes again.
    await vi.advanceTimersByTimeAsync(10_000);
    h.server.publish(snapshotOf(3, { a: 3 }));
    h.setHandler(h.server.handler);
    h.sockets.last.receive({ type: 'snapshot.updated', version: 3 });
    await vi.advanceTimersByTimeAsync(0);
    const early = h.requests.length;
    // Once the wait is over the client catches up, with the announced version.
    await vi.advanceTimersByTimeAsync(110_000);
    await h.client.close();
    expect(early).toBe(2);
    expect(h.requests.at(-1)!.headers['flagplane-min-version']).toBe('3');
  });
});
