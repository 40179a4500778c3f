// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { snapshotServer } from '../helpers/fake-transport';
import { harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { createFakeTransport as createFakeSockets } from '../stream/harness';
import { switchableSource } from '../helpers/platform-source';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  localStorage.clear();
});

const source = switchableSource;

describe('visibility and connectivity', () => {
  it('pauses polling while hidden and refreshes at once when visible again', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const visible = source(true);
    const { client, requests } = harness(server.handler, { pollInterval: 1000, visibilitySource: visible.visibility });
    await vi.advanceTimersByTimeAsync(0);
    visible.set(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(requests).toHaveLength(1);
    server.publish(snapshotOf(2, { a: 2 }));
    visible.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(2);
    expect(client.get('a')).toBe(2);
    await client.close();
    expect(visible.listeners.size).toBe(0);
  });

  it('pauseWhenHidden: false keeps polling while hidden', async () => {
    const visible = source(false);
    const { client, requests } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, {
      pollInterval: 1000,
      visibilitySource: visible.visibility,
      pauseWhenHidden: false,
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(requests).toHaveLength(4);
    await client.close();
  });

  it('makes no request while offline, and the stream reconnects only when back online', async () => {
    const net = source(false);
    const sockets = createFakeSockets();
    const { client, requests } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, {
      onlineSource: net.online,
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(sockets.transport),
      bootstrap: snapshotOf(1, { a: 'boot' }),
    });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(requests).toHaveLength(0);
    expect(sockets.sockets).toHaveLength(0);
    expect(client.get('a')).toBe('boot');
    net.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(1);
    expect(sockets.sockets).toHaveLength(1);
    expect(client.getStatus().connection).toBe('connecting');
    net.set(false);
    expect(sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(client.getStatus().connection).toBe('reconnecting');
    await client.close();
    expect(client.getStatus().connection).toBe('stopped');
  });

  it('the browser default reads navigator.onLine and the online/offline events', async () => {
    const { client, requests } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
    window.dispatchEvent(new Event('offline'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(1);
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
    window.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(2);
    await client.close();
  });
});
