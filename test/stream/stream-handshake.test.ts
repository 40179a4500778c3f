import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { wsTransport } from '../../adapters/ws';
import { StreamError } from '../../src/stream/stream-error';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { defaultScheduler } from '../../src/shared/scheduler';
import { streamingClient } from '../helpers/streaming-client';
import { connectedFrame, createFakeTransport, recordStream } from './harness';
import { waitFor } from './servers';

afterEach(() => {
  vi.useRealTimers();
});

describe('a handshake that does not complete within the request timeout', () => {
  it('fails: the socket that never opened is closed, reported, and the stream reconnects with backoff', async () => {
    vi.useFakeTimers();
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, requestTimeout: 5000 });
    await vi.advanceTimersByTimeAsync(4999);
    expect(fake.last.closeCalls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(stream.connections()).toEqual(['reconnecting']);
    expect(stream.errors()).toMatchObject([{ name: 'StreamError', code: 'stream', closeCode: null, reason: 'silent for 5000 ms' }]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.sockets).toHaveLength(2);
    expect(stream.connections()).toEqual(['reconnecting', 'connecting']);
    stream.connection.close();
  });

  it('an opened socket whose server never says connected fails the same way, one window later', async () => {
    vi.useFakeTimers();
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, requestTimeout: 5000 });
    await vi.advanceTimersByTimeAsync(3000);
    fake.last.open();
    await vi.advanceTimersByTimeAsync(4999);
    expect(stream.errors()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(stream.errors()).toHaveLength(1);
    expect(stream.connections()).toEqual(['reconnecting']);
    stream.connection.close();
  });

  it('a completed handshake is held to the heartbeat, not the request timeout', async () => {
    vi.useFakeTimers();
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, requestTimeout: 1000 });
    fake.last.open();
    fake.last.receive(connectedFrame(15_000));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(stream.errors()).toEqual([]);
    expect(stream.connections()).toEqual(['streaming']);
    stream.connection.close();
  });

  it('in the client: requestTimeout bounds the handshake, onError hears a StreamError, then connecting again after the backoff', async () => {
    vi.useFakeTimers();
    const h = streamingClient({ requestTimeout: 4000 });
    await h.client.ready();
    await vi.advanceTimersByTimeAsync(4000);
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]).toBeInstanceOf(StreamError);
    expect(h.client.getStatus().connection).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.client.getStatus().connection).toBe('connecting');
    expect(h.sockets.sockets).toHaveLength(2);
    await h.client.close();
  });
});

describe('a socket whose close() throws (another request’s I/O in Cloudflare Workers)', () => {
  /** Fake sockets whose close() throws, as a WebSocket owned by another request does in workerd. */
  function throwingSockets() {
    const fake = createFakeTransport();
    const transport: typeof fake.transport = (url, options, handlers) => {
      const socket = fake.transport(url, options, handlers);
      return {
        send: socket.send,
        close(code, reason) {
          socket.close(code, reason);
          throw new Error('Cannot perform I/O on behalf of a different request.');
        },
      };
    };
    return { fake, transport };
  }

  it('is dropped all the same: the handshake timeout reconnects, close() neither throws nor reports', async () => {
    vi.useFakeTimers();
    const { fake, transport } = throwingSockets();
    const stream = recordStream({ transport, requestTimeout: 2000 });
    await vi.advanceTimersByTimeAsync(3000);
    expect(fake.sockets).toHaveLength(2);
    expect(() => stream.connection.close()).not.toThrow();
    expect(stream.errors()).toHaveLength(1);
    expect(stream.connections()).toEqual(['reconnecting', 'connecting', 'stopped']);
  });

  it('client.close() resolves, and onError hears nothing of it', async () => {
    vi.useFakeTimers();
    const { transport } = throwingSockets();
    const h = streamingClient({ streamTransport: defineStreamTransport(transport) });
    await h.client.ready();
    await expect(h.client.close()).resolves.toBeUndefined();
    expect(h.errors).toEqual([]);
    expect(h.client.getStatus().connection).toBe('stopped');
  });
});

describe('a real server that takes the upgrade request and never answers', () => {
  it('wsTransport: the handshake fails after the request timeout, is reported, and a new attempt follows', async () => {
    const held: Socket[] = [];
    const server = createServer((socket) => {
      // Reads the upgrade request, answers nothing: a proxy holding the upgrade.
      held.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const started = Date.now();
    const stream = recordStream({
      transport: wsTransport,
      streamUrl: `http://127.0.0.1:${port}`,
      requestTimeout: 300,
      scheduler: { ...defaultScheduler, random: () => 0 },
    });
    try {
      await waitFor(() => stream.errors().length > 0, 'the handshake failure', 5000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(stream.errors()[0]).toMatchObject({ name: 'StreamError', reason: 'silent for 300 ms' });
      expect(stream.connections()).toEqual(['reconnecting']);
      await waitFor(() => held.length === 2, 'the reconnect', 5000);
    } finally {
      stream.connection.close();
      held.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
