import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client';
import { ConfigError } from '../../src/shared/errors';
import { StreamError } from '../../src/stream/stream-error';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { snapshotServer } from '../helpers/fake-transport';
import { BASE_URL, CLIENT_KEY, harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { createFakeTransport as createFakeSockets } from '../stream/harness';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function streaming(initialVersion = 1) {
  const server = snapshotServer(snapshotOf(initialVersion, { a: initialVersion }));
  const sockets = createFakeSockets();
  const h = harness(server.handler, { streamUrl: 'https://stream.test', streamTransport: defineStreamTransport(sockets.transport), pollInterval: 600_000 });
  return { ...h, server, sockets };
}

async function connect(h: ReturnType<typeof streaming>) {
  await h.client.ready();
  h.sockets.last.open();
  h.sockets.last.receive({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 15_000 });
}

describe('the client with a stream', () => {
  it('connects to {streamUrl}/sdk/v1/stream, subscribes with lastKnownVersion and reports its connection state', async () => {
    const h = streaming();
    expect(h.client.getStatus().connection).toBe('connecting');
    await connect(h);
    expect(h.sockets.last.url).toBe('wss://stream.test/sdk/v1/stream');
    expect(h.sockets.last.sent).toEqual([{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 }]);
    expect(h.client.getStatus().connection).toBe('streaming');
    await h.client.close();
  });

  it('refetches with minVersion on snapshot.updated, without waiting for a poll', async () => {
    const h = streaming();
    await connect(h);
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
    const h = streaming();
    await connect(h);
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
    const h = streaming();
    await connect(h);
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
    const h = streaming();
    await connect(h);
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

  it('close() closes the socket with 1000 and cancels a pending reconnect', async () => {
    const h = streaming();
    await connect(h);
    h.sockets.last.serverClose(1001, 'going away');
    expect(h.client.getStatus().connection).toBe('reconnecting');
    await h.client.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(h.sockets.sockets).toHaveLength(1);
    expect(h.client.getStatus().connection).toBe('stopped');
  });

  it('close() while connected closes the socket with 1000', async () => {
    const h = streaming();
    await connect(h);
    await h.client.close();
    expect(h.sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('streamUrl without a transport, or of another scheme, is a configuration error', () => {
    expect(() => createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, streamUrl: 'wss://x.test' })).toThrow(ConfigError);
    expect(() => createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, streamUrl: 'ftp://x.test', streamTransport: defineStreamTransport(createFakeSockets().transport) })).toThrow(/streamUrl/);
  });
});
