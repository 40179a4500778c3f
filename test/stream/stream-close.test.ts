import { describe, expect, it, vi } from 'vitest';
import { connectedFrame, createFakeTransport, recordStream, type FakeSocket, type Recorded } from './harness';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

/** Every kind of socket event, as a server (or the network) would play it. */
const lateEvents: Array<[name: string, play: (socket: FakeSocket) => void]> = [
  ['open', (socket) => socket.open()],
  ['connected', (socket) => socket.receive(connectedFrame())],
  ['ping', (socket) => socket.receive({ type: 'ping', ts: 9 })],
  ['snapshot.updated', (socket) => socket.receive({ type: 'snapshot.updated', environmentId: 'production', version: 99 })],
  ['a frame that is not JSON', (socket) => socket.receive('not json')],
  ['a transport error', (socket) => socket.fail()],
  ['a 4403 close', (socket) => socket.serverClose(4403, 'revoked')],
  ['a 1001 close', (socket) => socket.serverClose(1001)],
];

/** Plays every server event on a socket the client has let go of. */
function everythingArrivesLate(socket: FakeSocket): void {
  for (const [, play] of lateEvents) play(socket);
}

/** After close(): nothing pending, nothing new, and a long wait changes nothing. */
async function expectNothingAfterClose(fake: ReturnType<typeof createFakeTransport>, stream: { log: Recorded[]; versionReads(): number }): Promise<void> {
  const { log } = stream;
  expect(vi.getTimerCount()).toBe(0);
  const reads = stream.versionReads();
  const logged = log.length;
  const sockets = fake.sockets.length;
  const sent = fake.sockets.map((socket) => socket.sent.length);
  for (const socket of fake.sockets) everythingArrivesLate(socket);
  await vi.advanceTimersByTimeAsync(10 * 60_000);
  expect(log).toHaveLength(logged);
  expect(stream.versionReads()).toBe(reads);
  expect(fake.sockets).toHaveLength(sockets);
  expect(fake.sockets.map((socket) => socket.sent.length)).toEqual(sent);
  expect(vi.getTimerCount()).toBe(0);
}

describe('close()', () => {
  it('before the socket opened: closes it with 1000 and nothing runs afterwards', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    stream.connection.close();
    expect(fake.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(stream.log).toEqual([{ type: 'connection', connection: 'stopped' }]);
    await expectNothingAfterClose(fake, stream);
  });

  it('while opened but before connected', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    stream.connection.close();
    expect(fake.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    await expectNothingAfterClose(fake, stream);
  });

  it('while streaming', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.receive(connectedFrame(1000));
    stream.connection.close();
    expect(fake.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(stream.connections()).toEqual(['streaming', 'stopped']);
    await expectNothingAfterClose(fake, stream);
  });

  it('during a pending reconnect: the reconnect never happens', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(500);
    expect(vi.getTimerCount()).toBe(1);
    stream.connection.close();
    expect(stream.connections()).toEqual(['streaming', 'reconnecting', 'stopped']);
    await expectNothingAfterClose(fake, stream);
    expect(fake.sockets).toHaveLength(1);
  });

  it('twice: the second call does nothing', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    stream.connection.close();
    stream.connection.close();
    expect(fake.last.closeCalls).toHaveLength(1);
    expect(stream.connections()).toEqual(['stopped']);
    await expectNothingAfterClose(fake, stream);
  });

  it('after a 4401 stop: nothing is left to close', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.serverClose(4401, 'unknown SDK key');
    stream.connection.close();
    expect(stream.connections()).toEqual(['stopped']);
    await expectNothingAfterClose(fake, stream);
  });

  it('called from inside onNotify: the rest of that step is dropped and nothing runs afterwards', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({
      transport: fake.transport,
      onCallback: (entry) => {
        if (entry.type === 'notify') stream.connection.close();
      },
    });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 8 });
    expect(stream.log.map((entry) => entry.type === 'connection' ? entry.connection : entry.type)).toEqual(['streaming', 'notify', 'stopped']);
    await expectNothingAfterClose(fake, stream);
  });

  it('called from inside onError during a reconnect: stopped is the last change reported', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({
      transport: fake.transport,
      onCallback: (entry) => {
        if (entry.type === 'error') stream.connection.close();
      },
    });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.serverClose(4400, 'bad subscribe');
    expect(stream.log.map((entry) => entry.type === 'connection' ? entry.connection : entry.type)).toEqual(['streaming', 'error', 'stopped']);
    await expectNothingAfterClose(fake, stream);
  });

  it('called from inside onConnectionChange', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({
      transport: fake.transport,
      onCallback: (entry) => {
        if (entry.type === 'connection' && entry.connection === 'reconnecting') stream.connection.close();
      },
    });
    fake.last.serverClose(1006);
    expect(stream.connections()).toEqual(['reconnecting', 'stopped']);
    await expectNothingAfterClose(fake, stream);
  });
});

describe('a socket the client let go of', () => {
  // The shell drops them before the machine sees them; one event at a time, in both states
  // without a socket.
  describe.each([
    ['after close()', (stream: ReturnType<typeof recordStream>) => stream.connection.close(), ['streaming', 'stopped']],
    ['while a reconnect is pending', (_stream: ReturnType<typeof recordStream>, socket: FakeSocket) => socket.serverClose(1006), ['streaming', 'reconnecting']],
  ] as const)('%s', (_state, drop, connections) => {
    it.each(lateEvents)('ignores a late %s', async (_name, play) => {
      const fake = createFakeTransport();
      const stream = recordStream({ transport: fake.transport });
      const first = fake.last;
      first.open();
      first.receive(connectedFrame(1000));
      drop(stream, first);
      const logged = stream.log.length;
      const reads = stream.versionReads();
      const timers = vi.getTimerCount();
      play(first);
      expect(stream.log).toHaveLength(logged);
      expect(stream.connections()).toEqual(connections);
      expect(stream.versionReads()).toBe(reads);
      expect(first.sent).toEqual([{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 7 }]);
      expect(vi.getTimerCount()).toBe(timers);
      stream.connection.close();
    });
  });

  it.each([
    ['a server close', (socket: FakeSocket) => socket.serverClose(1006)],
    ['a frame that is not JSON', (socket: FakeSocket) => socket.receive('garbage')],
    ['silence', () => vi.advanceTimersByTimeAsync(2000)],
  ])('is ignored while the reconnect after %s is pending, which still comes on time', async (_name, drop) => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    const first = fake.last;
    first.open();
    first.receive(connectedFrame(1000));
    await drop(first);
    expect(stream.connections()).toEqual(['streaming', 'reconnecting']);
    const logged = stream.log.length;
    const reads = stream.versionReads();
    everythingArrivesLate(first);
    expect(stream.log).toHaveLength(logged);
    expect(stream.versionReads()).toBe(reads);
    expect(first.sent).toEqual([{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 7 }]);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(fake.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.sockets).toHaveLength(2);
    expect(stream.connections()).toEqual(['streaming', 'reconnecting', 'connecting']);
    stream.connection.close();
  });

  it('is ignored after a reconnect replaced it', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    const first = fake.last;
    first.receive('garbage');
    await vi.advanceTimersByTimeAsync(1000);
    const logged = stream.log.length;
    everythingArrivesLate(first);
    expect(stream.log).toHaveLength(logged);
    expect(first.sent).toEqual([]);
    expect(fake.sockets).toHaveLength(2);
    stream.connection.close();
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
