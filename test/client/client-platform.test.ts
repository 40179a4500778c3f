import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectedFrame } from '../stream/harness';
import { connectClient, streamingClient } from '../helpers/streaming-client';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

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
