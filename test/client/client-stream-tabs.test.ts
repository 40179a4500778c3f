import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BusChannel } from '../helpers/bus-channel';
import { createFakeTabLock } from '../helpers/fake-tab-lock';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';
import { createFakeTransport, response, snapshotServer, type Reply } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { connectClient, streamingClient } from '../helpers/streaming-client';
import type { HttpRequest } from '../../src/http/http-types';
import { SHARE_GRACE_MS } from '../../src/stream/tab-handover';

useFakeTimersInEachTest();

let locks: ReturnType<typeof createFakeTabLock>;
beforeEach(() => {
  // The tabs of one browser: one channel bus, one lock manager.
  locks = createFakeTabLock();
  vi.stubGlobal('BroadcastChannel', BusChannel);
  vi.stubGlobal('navigator', { locks: locks.lock });
});
afterEach(() => {
  vi.unstubAllGlobals();
  BusChannel.open.clear();
});

/** A channel slower than the lock: a message arrives 5 ms after it was sent (Chromium's are, now and then, by a millisecond). */
class SlowBusChannel extends BusChannel {
  override postMessage(data: unknown): void {
    setTimeout(() => super.postMessage(data), 5);
  }
}

/** Two streaming tabs of one key sharing snapshots, on one snapshot server; `replies` answers first when it has something. */
async function twoTabs() {
  const server = snapshotServer(snapshotOf(1, { a: 1 }));
  const replies: Reply[] = [];
  const http = createFakeTransport((request: HttpRequest) => replies.shift() ?? server.handler(request));
  const options = { transport: http.transport, syncTabs: true, persist: false };
  const tabs = [streamingClient(options), streamingClient(options)];
  for (const tab of tabs) await connectClient(tab);
  const snapshotGets = () => http.requests.filter((request) => request.url.endsWith('/sdk/v1/snapshot')).length;
  const announce = (version: number) => {
    for (const tab of tabs) tab.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version });
  };
  return { server, replies, tabs, snapshotGets, announce };
}

describe('streaming tabs sharing snapshots', () => {
  it('make one snapshot GET per publish: one tab fetches, the other takes the snapshot over the channel', async () => {
    const { server, tabs, snapshotGets, announce } = await twoTabs();
    for (let version = 2; version <= 4; version++) {
      const before = snapshotGets();
      server.publish(snapshotOf(version, { a: version }));
      announce(version);
      await vi.advanceTimersByTimeAsync(0);
      expect(snapshotGets() - before, `publish of ${version}`).toBe(1);
      for (const tab of tabs) expect(tab.client.get('a')).toBe(version);
      expect(tabs.map((tab) => tab.client.getStatus().source).sort()).toEqual(['network', 'tab']);
    }
    for (const tab of tabs) expect(tab.errors).toEqual([]);
    await Promise.all(tabs.map((tab) => tab.client.close()));
  });

  it('still make one GET per publish when the channel delivers after the lock passed on: the next tab waits a moment for it', async () => {
    vi.stubGlobal('BroadcastChannel', SlowBusChannel);
    const { server, tabs, snapshotGets, announce } = await twoTabs();
    for (let version = 2; version <= 3; version++) {
      const before = snapshotGets();
      server.publish(snapshotOf(version, { a: version }));
      announce(version);
      await vi.advanceTimersByTimeAsync(SHARE_GRACE_MS);
      expect(snapshotGets() - before, `publish of ${version}`).toBe(1);
      for (const tab of tabs) expect(tab.client.get('a')).toBe(version);
    }
    await Promise.all(tabs.map((tab) => tab.client.close()));
  });

  it('without tab sync each tab fetches for itself, at once', async () => {
    vi.stubGlobal('BroadcastChannel', BusChannel);
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const http = createFakeTransport(server.handler);
    const tabs = [streamingClient({ transport: http.transport, syncTabs: false, persist: false }), streamingClient({ transport: http.transport, syncTabs: false, persist: false })];
    for (const tab of tabs) await connectClient(tab);
    const before = http.requests.length;
    server.publish(snapshotOf(2, { a: 2 }));
    for (const tab of tabs) tab.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    expect(http.requests.length - before).toBe(2);
    expect(locks.requested).toEqual([]);
    await Promise.all(tabs.map((tab) => tab.client.close()));
  });

  it('when the fetching tab fails, the next tab fetches the version itself and shares it', async () => {
    const { server, replies, tabs, snapshotGets, announce } = await twoTabs();
    const before = snapshotGets();
    server.publish(snapshotOf(2, { a: 2 }));
    replies.push(response(503, ''));
    announce(2);
    // The next tab's turn, without the version: it waits out the grace for the channel, then fetches.
    await vi.advanceTimersByTimeAsync(SHARE_GRACE_MS);
    expect(snapshotGets() - before).toBe(2);
    for (const tab of tabs) expect(tab.client.get('a')).toBe(2);
    expect(tabs.flatMap((tab) => tab.errors.map((error) => error.code))).toEqual(['http']);
    await Promise.all(tabs.map((tab) => tab.client.close()));
  });

  it('when the fetching tab is closed mid-fetch, the next tab fetches the version itself', async () => {
    const { server, replies, tabs, snapshotGets, announce } = await twoTabs();
    const before = snapshotGets();
    server.publish(snapshotOf(2, { a: 2 }));
    replies.push('hang');
    announce(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(snapshotGets() - before).toBe(1);
    await tabs[0]!.client.close();
    await vi.advanceTimersByTimeAsync(SHARE_GRACE_MS);
    expect(snapshotGets() - before).toBe(2);
    expect(tabs[1]!.client.getStatus()).toMatchObject({ version: 2, source: 'network' });
    await tabs[1]!.client.close();
  });

  it('reads never wait for the lock: a tab waiting for its turn serves what it holds', async () => {
    const { server, replies, tabs, announce } = await twoTabs();
    server.publish(snapshotOf(2, { a: 2 }));
    replies.push('hang');
    announce(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(locks.waiting(locks.requested[0]!)).toBe(1);
    for (const tab of tabs) expect(tab.client.get('a')).toBe(1);
    await Promise.all(tabs.map((tab) => tab.client.close()));
  });
});
