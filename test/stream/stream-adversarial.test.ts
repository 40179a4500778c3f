import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initialStreamState, streamTransition } from '../../src/stream/stream-machine';
import type { StreamState } from '../../src/stream/stream-machine';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import type { StreamTransport } from '../../src/stream/stream-transport';
import { BASE_URL, harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { connectedFrame, createFakeTransport, recordStream } from './harness';
import { switchableSource } from '../helpers/platform-source';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const source = switchableSource;

/** A client on fake sockets, with switchable network and visibility. */
function streamingClient(options: Parameters<typeof harness>[1] = {}) {
  const server = snapshotServer(snapshotOf(1, { a: 1 }));
  const sockets = createFakeTransport();
  const net = source(true);
  const page = source(true);
  const h = harness(server.handler, {
    streamUrl: 'https://stream.test',
    streamTransport: defineStreamTransport(sockets.transport),
    pollInterval: 600_000,
    onlineSource: net.online,
    visibilitySource: page.visibility,
    ...options,
  });
  return { ...h, server, sockets, net, page };
}

async function connectClient(h: ReturnType<typeof streamingClient>) {
  await h.client.ready();
  h.sockets.last.open();
  h.sockets.last.receive(connectedFrame());
}

const streaming: StreamState = { connection: 'streaming', attempt: 0, heartbeatMs: 1000 };

describe('every close code through the shell, before connected', () => {
  // protocol.md §6.4: 4401 and 4403 stop for good; every other code reconnects, only 4400 is reported.
  it.each([
    [1000, 'reconnecting', false],
    [1001, 'reconnecting', false],
    [1006, 'reconnecting', false],
    [1008, 'reconnecting', false],
    [1011, 'reconnecting', false],
    [4000, 'reconnecting', false],
    [4001, 'reconnecting', false],
    [4400, 'reconnecting', true],
    [4401, 'stopped', true],
    [4403, 'stopped', true],
    [4999, 'reconnecting', false],
  ] as const)('%i before connected (socket opened only): %s, reported: %s', async (code, connection, reported) => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.serverClose(code, 'why');
    expect(stream.connections()).toEqual([connection]);
    expect(stream.errors().map((error) => error.closeCode)).toEqual(reported ? [code] : []);
    expect(fake.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    // A reconnect opens a second socket (which then stays silent and is closed for silence, and so on).
    expect(fake.sockets.length > 1).toBe(connection === 'reconnecting');
    stream.connection.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('frames the server should never send', () => {
  // Before the fix: stream-machine.ts onFrame only checks `typeof version == 'number'`.
  it.each([
    ['a negative version', -1],
    ['a fractional version', 2.5],
    ['a version beyond the safe integers', 1e21],
    ['an infinite version (1e400 parses to Infinity)', '1e400'],
  ])('snapshot.updated with %s is ignored like a mistyped member (no notify)', (_name, version) => {
    const data = `{"type":"snapshot.updated","environmentId":"production","version":${version}}`;
    const step = streamTransition(streaming, { type: 'message', data }, 0, 7);
    expect(step.notify).toBeUndefined();
    expect(step.state).toEqual(streaming);
  });

  // Before the fix: `typeof ts == 'number'` lets Infinity through; JSON.stringify turns it into null.
  it('a ping whose ts is not finite (1e400) is not answered with a pong the server would reject (ts: null)', () => {
    const step = streamTransition(streaming, { type: 'message', data: '{"type":"ping","ts":1e400}' }, 0, 7);
    const sent = step.send ? (JSON.parse(JSON.stringify(step.send)) as { ts: unknown }) : undefined;
    expect(sent === undefined || typeof sent.ts === 'number').toBe(true);
  });

  // Before the fix: `Object(frame) !== frame` is false for an array, which is then ignored like a typeless object.
  it.each(['[]', '[{"type":"snapshot.updated","version":9}]'])('a JSON array (%s) is not a JSON object: reported and answered by a reconnect', (data) => {
    const step = streamTransition(streaming, { type: 'message', data }, 0, 7);
    expect(step.state.connection).toBe('reconnecting');
    expect(step.report?.reason).toBe('bad frame ' + data);
  });

  it('JSON null (which Object() turns into {}) is reported and answered by a reconnect, also while connecting', () => {
    const data = 'null';
    const step = streamTransition(initialStreamState, { type: 'message', data }, 0, 7);
    expect(step.state.connection).toBe('reconnecting');
    expect(step.report?.reason).toBe('bad frame ' + data);
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

describe('heartbeatMs at the edges', () => {
  // 2 × heartbeatMs above 2^31 - 1 ms overflows setTimeout, which then fires after 1 ms.
  it.each([
    ['a very long heartbeat', '1500000000'],
    ['an infinite heartbeat (1e400 parses to Infinity)', '1e400'],
  ])('%s: the connection is not declared silent at once', async (_name, heartbeat) => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.receive(`{"type":"connected","protocol":1,"environmentId":"production","version":1,"heartbeatMs":${heartbeat}}`);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stream.errors()).toEqual([]);
    expect(stream.connections()).toEqual(['streaming']);
    expect(fake.sockets).toHaveLength(1);
    stream.connection.close();
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

describe('the client: network and visibility flapping', () => {
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

describe('the client: close() from inside a stream-driven callback', () => {
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

describe('a socket whose close() reports its close event at once', () => {
  // socket-types.ts asks for asynchronous events, but also promises that "the core stops
  // listening once it has closed a socket"; a platform socket (or a test double) that fires
  // onclose from inside close() must not bring the stream back to life.
  // Before the fix: stream-connection.ts dispatch() calls socket.close(1000) before clearing `socket`.
  it('close(): stopped is reported, no timer is left and no socket is ever opened again', async () => {
    let opened = 0;
    const stream = recordStream({
      transport: (_url, _options, handlers) => {
        opened++;
        return { send: () => undefined, close: (code) => handlers.onClose(code ?? 1005, '') };
      },
    });
    stream.connection.close();
    const timers = vi.getTimerCount();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect({ connections: stream.connections(), timers, opened }).toEqual({ connections: ['stopped'], timers: 0, opened: 1 });
  });
});
