import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { snapshotOf } from '../helpers/snapshots';
import { connectedFrame } from '../stream/harness';
import { connectClient, streamingClient } from '../helpers/streaming-client';
import { HttpError } from '../../src/shared/errors';
import { response, snapshotServer } from '../helpers/fake-transport';
import { harness } from '../helpers/client-harness';

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

describe('re-entrant calls from listeners and onError', () => {
  it('close() from a subscribe listener leaves no timer behind (no poll is armed after close)', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { pollInterval: 30_000 });
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
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, errors } = harness(server.handler, { pollInterval: 1000 });
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
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests } = harness(server.handler, { pollInterval: 1000 });
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
