import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { snapshotOf } from '../helpers/snapshots';
import { connectedFrame } from '../stream/harness';
import { connectClient, streamingClient } from '../helpers/streaming-client';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

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
