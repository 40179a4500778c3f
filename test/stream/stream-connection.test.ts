import { describe, expect, it, vi } from 'vitest';
import { defaultScheduler } from '../../src/shared/scheduler';
import { StreamError } from '../../src/stream/stream-error';
import { streamEndpoint } from '../../src/stream/stream-connection';
import { connectedFrame, createFakeTransport, recordStream, SDK_KEY } from './harness';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

describe('streamEndpoint', () => {
  it.each([
    ['https://stream.flags.test', 'wss://stream.flags.test/sdk/v1/stream'],
    ['http://localhost:8787', 'ws://localhost:8787/sdk/v1/stream'],
    ['https://edge.example.com/flags//', 'wss://edge.example.com/flags/sdk/v1/stream'],
    ['wss://ws.example.com/', 'wss://ws.example.com/sdk/v1/stream'],
    // The stream's whole URL, as the reference server's banner prints it.
    ['ws://127.0.0.1:8787/sdk/v1/stream', 'ws://127.0.0.1:8787/sdk/v1/stream'],
    ['https://edge.example.com/flags/sdk/v1/stream/', 'wss://edge.example.com/flags/sdk/v1/stream'],
  ])('%s → %s', (origin, url) => {
    expect(streamEndpoint(origin)).toBe(url);
  });
});

describe('the handshake through the shell', () => {
  it('opens one socket at once, to the mapped URL, offering flagplane.v1 and the key subprotocol', () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, streamUrl: 'https://stream.flags.test/' });
    expect(fake.sockets).toHaveLength(1);
    expect(fake.last).toMatchObject({
      url: 'wss://stream.flags.test/sdk/v1/stream',
      protocols: ['flagplane.v1', `flagplane.key.${SDK_KEY}`],
      sdkKey: SDK_KEY,
    });
    expect(stream.log).toEqual([]);
    stream.connection.close();
  });

  it('sends nothing before connected, then exactly one subscribe with the environment of connected and the last known version', () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, version: 41 });
    fake.last.open();
    fake.last.receive({ type: 'ping', ts: 3 });
    expect(fake.last.sent).toEqual([]);
    stream.setVersion(42);
    fake.last.receive(connectedFrame(15_000, 'staging', 44));
    expect(fake.last.sent).toEqual([{ type: 'subscribe', environmentId: 'staging', lastKnownVersion: 42 }]);
    expect(stream.connections()).toEqual(['streaming']);
    stream.connection.close();
  });

  it('answers ping with pong, notifies updated and resync, and ignores unknown types', () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.receive({ type: 'ping', ts: 1234 });
    fake.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 8 });
    fake.last.receive({ type: 'flags.changed', keys: ['a'] });
    fake.last.receive({ type: 'snapshot.resync', environmentId: 'production', version: 8, reason: 'operator' });
    expect(fake.last.sent).toEqual([
      { type: 'subscribe', environmentId: 'production', lastKnownVersion: 7 },
      { type: 'pong', ts: 1234 },
    ]);
    expect(stream.notifies()).toEqual([
      { kind: 'updated', version: 8 },
      { kind: 'resync', version: 8 },
    ]);
    expect(stream.errors()).toEqual([]);
    stream.connection.close();
  });

  it('reports a frame that is not JSON, closes the socket with 1000 and reconnects', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.receive('<html>502 Bad Gateway</html>');
    expect(fake.sockets[0]?.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(stream.errors()).toMatchObject([{ closeCode: null, reason: 'bad frame <html>502 Bad Gateway</html>' }]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.sockets).toHaveLength(2);
    stream.connection.close();
  });

  it('resubscribes after a reconnect with the version known by then', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, version: 3 });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.serverClose(1001, 'going away');
    stream.setVersion(5);
    await vi.advanceTimersByTimeAsync(1000);
    fake.last.open();
    fake.last.receive(connectedFrame());
    expect(fake.sockets.map((socket) => socket.sent)).toEqual([
      [{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 3 }],
      [{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 5 }],
    ]);
    stream.connection.close();
  });
});

describe('close codes', () => {
  it.each([4401, 4403])('%i: stopped, a StreamError reported, never a reconnect', async (code) => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    if (code === 4403) fake.last.receive(connectedFrame());
    fake.last.serverClose(code, 'the key is no good');
    expect(stream.connections().at(-1)).toBe('stopped');
    const [error, ...others] = stream.errors();
    expect(others).toEqual([]);
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toMatchObject({ code: 'stream', closeCode: code, reason: 'the key is no good' });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(fake.sockets).toHaveLength(1);
  });

  it('1001 after connected: reconnects after scheduler.random × 1 s, without reporting', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, scheduler: { ...defaultScheduler, random: () => 0.5 } });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.serverClose(1001, 'going away');
    expect(stream.connections()).toEqual(['streaming', 'reconnecting']);
    await vi.advanceTimersByTimeAsync(499);
    expect(fake.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.sockets).toHaveLength(2);
    fake.last.open();
    fake.last.receive(connectedFrame());
    expect(stream.connections()).toEqual(['streaming', 'reconnecting', 'connecting', 'streaming']);
    expect(stream.errors()).toEqual([]);
    stream.connection.close();
  });

  it('4400: reconnects and reports', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.serverClose(4400, 'unknown message type "pong2"');
    expect(stream.errors()).toMatchObject([{ closeCode: 4400, reason: 'unknown message type "pong2"' }]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.sockets).toHaveLength(2);
    stream.connection.close();
  });

  it('a transport error: reports it with its cause and reconnects once, whatever close follows', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    const cause = new Error('ECONNREFUSED');
    fake.last.fail(cause);
    fake.last.serverClose(1006);
    expect(stream.errors()).toMatchObject([{ closeCode: null, reason: 'transport error', cause }]);
    expect(stream.connections()).toEqual(['reconnecting']);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.sockets).toHaveLength(2);
    expect(fake.sockets[0]?.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    stream.connection.close();
  });

  it('a transport that throws: stopped and reported, nothing left running', () => {
    const cause = new SyntaxError("The subprotocol 'flagplane.key.a b' is invalid");
    const stream = recordStream({
      transport: () => {
        throw cause;
      },
    });
    expect(stream.log).toMatchObject([
      { type: 'error', error: { closeCode: null, reason: `cannot open: ${cause.message}`, cause } },
      { type: 'connection', connection: 'stopped' },
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

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
