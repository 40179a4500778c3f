import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTabSync, type TabSync, type TabSyncMessage } from '../../src/platform/tab-sync';
import { snapshotOf } from '../helpers/snapshots';
import { waitFor } from '../helpers/wait-for';
import type { ReadyResult } from '../../src/machine/client-state';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';

// Node 20's global BroadcastChannel delivers asynchronously, across instances of one name.
let opened: Array<{ close(): void }> = [];
let channelCount = 0;
afterEach(() => {
  for (const channel of opened) channel.close();
  opened = [];
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** A fresh channel name per test, so tests never hear each other. */
const freshName = () => `flagplane-tab-sync-test-${process.pid}-${++channelCount}`;

function tab(name: string): { sync: TabSync; received: TabSyncMessage[] } {
  const received: TabSyncMessage[] = [];
  const sync = createTabSync(name, (message) => received.push(message));
  if (!sync) throw new Error('BroadcastChannel is missing');
  opened.push(sync);
  return { sync, received };
}

/** A raw channel, to send what an older or broken SDK might. */
function rawChannel(name: string): BroadcastChannel {
  const channel = new BroadcastChannel(name);
  opened.push(channel);
  return channel;
}

/** Lets queued channel messages arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('createTabSync', () => {
  it('delivers a published snapshot and etag to the other tab, not to the sender', async () => {
    const name = freshName();
    const a = tab(name);
    const b = tab(name);
    const snapshot = snapshotOf(7, { banner: true });
    a.sync.publish({ snapshot, etag: '"v7"' });
    await waitFor(() => b.received.length > 0, 2000, 'delivery to tab b');
    expect(b.received).toEqual([{ snapshot, etag: '"v7"' }]);
    b.sync.publish({ snapshot: snapshotOf(8, {}), etag: null });
    await waitFor(() => a.received.length > 0, 2000, 'delivery to tab a');
    expect(a.received).toEqual([{ snapshot: snapshotOf(8, {}), etag: null }]);
    await settle();
    expect(b.received).toHaveLength(1);
  });

  it('does not deliver across channel names', async () => {
    const a = tab(freshName());
    const b = tab(freshName());
    a.sync.publish({ snapshot: snapshotOf(1, {}), etag: null });
    await settle();
    expect(b.received).toEqual([]);
  });

  it('ignores invalid messages silently and still accepts the next valid one', async () => {
    const name = freshName();
    const receiver = tab(name);
    const sender = rawChannel(name);
    const valid = snapshotOf(3, { x: 1 });
    const invalid: unknown[] = [
      null,
      undefined,
      42,
      'snapshot',
      [],
      {},
      { snapshot: valid },
      { snapshot: valid, etag: 5 },
      { snapshot: { ...valid, schemaVersion: 2 }, etag: null },
      { snapshot: { ...valid, version: -1 }, etag: null },
      { snapshot: { ...valid, environmentId: 1 }, etag: null },
      { snapshot: { ...valid, flags: [] }, etag: null },
      { snapshot: 'not a snapshot', etag: null },
    ];
    for (const message of invalid) sender.postMessage(message);
    sender.postMessage({ snapshot: valid, etag: 'e3', extra: 'ignored' });
    await waitFor(() => receiver.received.length > 0, 2000, 'the valid message');
    await settle();
    expect(receiver.received).toEqual([{ snapshot: valid, etag: 'e3' }]);
  });

  it('close() stops delivery to the closed tab, and publish after close is a no-op', async () => {
    const name = freshName();
    const a = tab(name);
    const b = tab(name);
    const watcher = tab(name);
    b.sync.close();
    b.sync.close();
    a.sync.publish({ snapshot: snapshotOf(1, {}), etag: null });
    await waitFor(() => watcher.received.length > 0, 2000, 'delivery to the open tab');
    await settle();
    expect(b.received).toEqual([]);
    expect(() => b.sync.publish({ snapshot: snapshotOf(2, {}), etag: null })).not.toThrow();
    await settle();
    expect(watcher.received).toHaveLength(1);
  });

  it('returns null without BroadcastChannel', () => {
    vi.stubGlobal('BroadcastChannel', undefined);
    expect(createTabSync(freshName(), () => {})).toBeNull();
  });

  it('unrefs the channel so an open one never keeps a Node process alive', () => {
    const unref = vi.spyOn(BroadcastChannel.prototype as unknown as { unref(): void }, 'unref');
    tab(freshName());
    expect(unref).toHaveBeenCalledTimes(1);
  });
});

describe('tab sync with a BroadcastChannel that misbehaves', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
  /** A BroadcastChannel whose postMessage throws, as it does for an uncloneable message or a closed channel. */
  class ThrowingChannel {
    static posts = 0;
    onmessage: ((event: MessageEvent) => void) | null = null;
    constructor(readonly name: string) {}
    postMessage(): void {
      ThrowingChannel.posts++;
      throw new DOMException('The object could not be cloned.', 'DataCloneError');
    }
    close(): void {}
  }

  it('a postMessage that throws (DataCloneError, InvalidStateError) breaks neither refresh(), ready() nor polling', async () => {
    // Was a bug: client.ts runs the `persist` effect as `persist?.(effect); return tabs?.publish(effect)`
    // and tab-sync.ts publishes with a bare `channel.postMessage(message)`. The throw escapes
    // dispatch(), so the effects after `persist` never run: `resolve-ready` (ready() then
    // never settles, not even at readyTimeout, since the status is already `ready`) and the
    // `poll-due` timer (polling stops for good). refresh() rejects; at start-up the same throw
    // is an unhandled rejection.
    vi.useFakeTimers();
    ThrowingChannel.posts = 0;
    vi.stubGlobal('BroadcastChannel', ThrowingChannel);
    let first = true;
    const server = snapshotServer(snapshotOf(1, { a: 'v1' }));
    // The first fetch hangs, so the one that throws is refresh()'s, whose caller sees the outcome.
    const { client, requests } = harness(
      (request) => {
        if (!first) return server.handler(request);
        first = false;
        return 'hang';
      },
      { syncTabs: true, pollInterval: 1000, readyTimeout: 3000 },
    );
    const ready: ReadyResult[] = [];
    void client.ready().then((result) => ready.push(result));
    let refreshOutcome = 'pending';
    await client.refresh().then(
      () => (refreshOutcome = 'resolved'),
      (error: unknown) => (refreshOutcome = `rejected: ${String(error)}`),
    );
    // Past readyTimeout, and three poll intervals.
    await vi.advanceTimersByTimeAsync(3000);
    const seen = { value: client.get('a'), refreshOutcome, ready, requests: requests.length };
    await client.close();
    expect(ThrowingChannel.posts).toBeGreaterThanOrEqual(1);
    // Before the fix: { value: 'v1', refreshOutcome: 'rejected: DataCloneError: …', ready: [], requests: 2 }.
    expect(seen).toEqual({ value: 'v1', refreshOutcome: 'resolved', ready: [{ status: 'ready', source: 'network' }], requests: 5 });
  });

  it('a message that is not a snapshot, or of another schema, changes nothing and reports nothing', async () => {
    vi.useFakeTimers();
    const channels: Array<{ onmessage: ((event: MessageEvent) => void) | null }> = [];
    vi.stubGlobal(
      'BroadcastChannel',
      class {
        onmessage: ((event: MessageEvent) => void) | null = null;
        constructor() {
          channels.push(this);
        }
        postMessage() {}
        close() {}
      },
    );
    const server = snapshotServer(snapshotOf(2, { a: 'net' }));
    const { client, errors } = harness(server.handler, { syncTabs: true });
    await client.ready();
    const before = client.getStatus();
    const deliver = (data: unknown) => channels[0]!.onmessage?.({ data } as MessageEvent);
    for (const data of [
      undefined,
      null,
      'snapshot',
      42,
      [snapshotOf(9, { a: 'array' })],
      { snapshot: { ...snapshotOf(9, { a: 'schema 2' }), schemaVersion: 2 }, etag: null },
      { snapshot: snapshotOf(9, { a: 'etag object' }), etag: { toString: () => 'x' } },
      { snapshot: { ...snapshotOf(9, { a: 'float' }), version: 9.5 }, etag: null },
      { snapshot: snapshotOf(1, { a: 'older' }), etag: '"older"' },
    ]) {
      expect(() => deliver(data)).not.toThrow();
    }
    expect(client.get('a')).toBe('net');
    expect(client.getStatus()).toBe(before);
    expect(errors).toEqual([]);
    await client.close();
  });
});
