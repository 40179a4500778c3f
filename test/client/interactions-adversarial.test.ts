import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClientStatus } from '../../src/machine/client-state';
import type { HttpRequest } from '../../src/http/http-types';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { fingerprint } from '../../src/shared/fingerprint';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { CLIENT_KEY, harness } from '../helpers/client-harness';
import { byPlan, fakeDataPlane } from '../helpers/events-server';
import { jsonResponse, response, snapshotServer, type Reply } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { connectedFrame, createFakeTransport as createFakeSockets } from '../stream/harness';
import { switchableSource } from '../helpers/platform-source';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const source = switchableSource;

/**
 * An in-memory BroadcastChannel: a message goes to every other open channel of the same
 * name (in this process too, as a real one does), one macrotask later.
 */
class BusChannel {
  static open = new Set<BusChannel>();
  onmessage: ((event: MessageEvent) => void) | null = null;
  constructor(readonly name: string) {
    BusChannel.open.add(this);
  }
  postMessage(data: unknown): void {
    const copy = structuredClone(data);
    for (const other of BusChannel.open) {
      if (other !== this && other.name === this.name) queueMicrotask(() => other.onmessage?.({ data: copy } as MessageEvent));
    }
  }
  close(): void {
    BusChannel.open.delete(this);
  }
}

const isIdentity = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/identity';
const isSnapshot = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/snapshot';

describe('several sources in one tick: version gating, ready() source and the ETag kept', () => {
  it('bootstrap v3, a cached v5, a tab v6 while the fetch is in flight, then the network answers v5: v6 and its ETag stay', async () => {
    vi.stubGlobal('BroadcastChannel', BusChannel);
    const cache = createMemoryStorage();
    const keyFingerprint = fingerprint(CLIENT_KEY);
    cache.set(`flagplane:snapshot:${keyFingerprint}`, JSON.stringify({ format: 1, key: keyFingerprint, etag: '"c5"', snapshot: snapshotOf(5, { a: 'cache' }) }));
    let answer!: (reply: Reply) => void;
    const { client, requests, errors } = harness(() => new Promise<Reply>((resolve) => (answer = resolve)), {
      bootstrap: snapshotOf(3, { a: 'bootstrap' }),
      cache,
      syncTabs: true,
      pollInterval: 1000,
    });
    const ready = await client.ready();
    expect(ready).toEqual({ status: 'ready', source: 'bootstrap' });
    // The cached v5 replaced the bootstrap at once, and its ETag goes out with the first request.
    expect(client.get('a')).toBe('cache');
    await vi.advanceTimersByTimeAsync(0);
    expect(requests[0]!.headers['if-none-match']).toBe('"c5"');
    // Another tab of the same key shares v6 while our request is in flight.
    const otherTab = new BusChannel(`flagplane:${keyFingerprint}`);
    otherTab.postMessage({ snapshot: snapshotOf(6, { a: 'tab' }), etag: '"t6"' });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus()).toMatchObject({ source: 'tab', version: 6 });
    // A lagging edge answers v5: ignored, but it is still a successful fetch.
    answer(jsonResponse(200, snapshotOf(5, { a: 'network' }), { etag: '"n5"' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe('tab');
    expect(client.getStatus()).toMatchObject({ status: 'ready', source: 'tab', version: 6, error: null });
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers['if-none-match']).toBe('"t6"');
    answer(response(304, '', { etag: '"t6"' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe('tab');
    expect(errors).toEqual([]);
    otherTab.close();
    await client.close();
  });

});

describe('Retry-After and the stream', () => {
  /** A streaming client on fake sockets whose snapshot route the test switches. */
  async function streamingClient() {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    let handler: (request: HttpRequest) => Reply = server.handler;
    const sockets = createFakeSockets();
    const h = harness((request) => handler(request), {
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(sockets.transport),
      pollInterval: 600_000,
    });
    await h.client.ready();
    sockets.last.open();
    sockets.last.receive(connectedFrame(60_000));
    return { ...h, server, sockets, setHandler: (next: typeof handler) => (handler = next) };
  }

  it('a snapshot.updated during a 429 Retry-After wait does not fetch before the server allows it', async () => {
    // Was a bug: docs/protocol.md §5: "A client honours `Retry-After` on 429 and 503"; docs/client.md:
    // "A `Retry-After` on 429 or 503 lengthens the delay." transition.ts `stream-notify` fetches
    // whenever `fetch === 'idle'`, which it is during a backoff wait, so every notification the
    // gateway broadcasts (to every client at once, exactly when the data plane is shedding load)
    // sends a request the server asked to be spared. Fix: keep the `Retry-After` deadline in the
    // state (e.g. `notBefore`) and, in `stream-notify`, only raise `wanted` while it is in the
    // future; the armed `poll-due` then fetches with `minVersion`.
    const h = await streamingClient();
    h.setHandler(() => response(429, '{"error":{"code":"rate_limited","message":"slow down"}}', { 'retry-after': '120' }));
    h.sockets.last.receive({ type: 'snapshot.updated', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.requests).toHaveLength(2);
    expect(h.client.getStatus().error).toMatchObject({ status: 429 });
    // Ten seconds into the two-minute wait, the server publishes again.
    await vi.advanceTimersByTimeAsync(10_000);
    h.server.publish(snapshotOf(3, { a: 3 }));
    h.setHandler(h.server.handler);
    h.sockets.last.receive({ type: 'snapshot.updated', version: 3 });
    await vi.advanceTimersByTimeAsync(0);
    const early = h.requests.length;
    // Once the wait is over the client catches up, with the announced version.
    await vi.advanceTimersByTimeAsync(110_000);
    await h.client.close();
    expect(early).toBe(2);
    expect(h.requests.at(-1)!.headers['flagplane-min-version']).toBe('3');
  });
});

describe('close() with a catch-up, an overlay and a refresh in flight', () => {
  it('identify() during a stream catch-up, then close(): every promise settles, every request is aborted, nothing is reported or left', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    let hang = false;
    const sockets = createFakeSockets();
    const { client, requests, errors } = harness((request) => (hang ? 'hang' : server.handler(request)), {
      streamUrl: 'https://stream.test',
      streamTransport: defineStreamTransport(sockets.transport),
      pollInterval: 600_000,
    });
    await client.ready();
    sockets.last.open();
    sockets.last.receive(connectedFrame(60_000));
    // An edge that lags: the catch-up fetch answers v1 (a 304), then the next one hangs.
    sockets.last.receive({ type: 'snapshot.updated', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    hang = true;
    await vi.advanceTimersByTimeAsync(250);
    expect(requests.at(-1)!.headers['flagplane-min-version']).toBe('2');
    const identified = client.identify('u-1', { plan: 'pro' });
    const refreshed = client.refresh();
    sockets.last.receive({ type: 'snapshot.updated', version: 3 });
    await vi.advanceTimersByTimeAsync(0);
    const settled: string[] = [];
    await Promise.all([
      client.close().then(() => settled.push('close')),
      identified.then(() => settled.push('identify')),
      refreshed.then(() => settled.push('refresh')),
    ]);
    expect(settled.sort()).toEqual(['close', 'identify', 'refresh']);
    expect(requests.filter((request) => !request.signal.aborted).every((request) => isSnapshot(request))).toBe(true);
    expect(requests.filter(isIdentity).map((request) => request.signal.aborted)).toEqual([true]);
    expect(requests.at(-1)!.signal.aborted).toBe(true);
    expect(sockets.last.closeCalls).toEqual([{ code: 1000, reason: undefined }]);
    expect(client.getStatus()).toMatchObject({ connection: 'stopped', version: 1 });
    expect(client.getContext()).toEqual({ userId: 'u-1', attributes: { plan: 'pro' }, segmentIds: [] });
    expect(errors).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('identify() with the overlay, offline and again', () => {
  const plan = { schemaVersion: 1 as const, version: 1, environmentId: 'production', flags: { pro: byPlan('pro') } };

  it('identify() of the same user without traits keeps the overlay traits: no flag flickers off and back on', async () => {
    // Was a bug: docs/events.md, Identity: "when `traits` are given they become the session traits …;
    // without `traits` the current attributes stay", and "notifies only the flags whose value
    // changed". client.ts identify() sets `attributes: sessionTraits`, dropping the overlay
    // merged into the current attributes: a flag targeted on an overlay trait flips off at once
    // and back on when the same overlay is fetched again (two notifications, two renders, two
    // evaluation events for a value the user never should have seen). Fix: when `traits` is
    // omitted and `userId` is the current one, keep `context.attributes`.
    const plane = fakeDataPlane(plan);
    plane.overlays['u-1'] = { plan: 'pro' };
    const { client } = harness(plane.handler, { pollInterval: 0 });
    await client.ready();
    await client.identify('u-1', { country: 'DE' });
    expect(client.getContext().attributes).toEqual({ plan: 'pro', country: 'DE' });
    expect(client.get('pro')).toBe('yes');
    const heard: string[] = [];
    client.subscribe(({ changed }) => {
      if (changed.has('pro')) heard.push(String(client.get('pro')));
    });
    const again = client.identify('u-1');
    const during = { attributes: client.getContext().attributes, value: client.get('pro') };
    await again;
    await client.close();
    expect({ during, heard }).toEqual({ during: { attributes: { plan: 'pro', country: 'DE' }, value: 'yes' }, heard: [] });
  });

  it('identify() while offline fetches no overlay then, and applies it once back online', async () => {
    // Was a bug: docs/client.md, `pauseWhenOffline`: "No request while offline; … a refresh at once on
    // return." identify() sends GET /sdk/v1/identity while offline (the overlay fetcher ignores
    // the activity); on a real device it fails with a NetworkError, and nothing fetches it again
    // on return, so the user's remote traits stay missing until the next identify(). Fix: when
    // offline, remember the pending userId and fetch its overlay on the `activity` change back
    // (identify() resolving then, or at once with the overlay still to come).
    const net = source(true);
    const plane = fakeDataPlane(plan);
    plane.overlays['u-1'] = { plan: 'pro' };
    const { client, requests } = harness(
      (request) => (net.value ? plane.handler(request) : { kind: 'network-error', cause: new TypeError('Failed to fetch') }),
      { pollInterval: 0, onlineSource: net.online },
    );
    await client.ready();
    net.set(false);
    await client.identify('u-1');
    const sentOffline = requests.filter(isIdentity).length;
    net.set(true);
    await vi.advanceTimersByTimeAsync(0);
    await client.close();
    expect({ sentOffline, attributes: client.getContext().attributes }).toEqual({ sentOffline: 0, attributes: { plan: 'pro' } });
  });
});

describe('refresh() and the platform', () => {
  it('refresh() while offline resolves at once, even with a fetch from before going offline still in flight', async () => {
    // Was a bug: docs/client.md, refresh(): "Offline (with `pauseWhenOffline`) it makes no request and
    // resolves at once". client.ts refresh() returns fetched(), which waits for the fetch in
    // flight (going offline does not abort it), so a pull-to-refresh offline spins until that
    // request ends, up to `requestTimeout` (10 s here). Fix: in refresh(), when the activity is
    // `offline` (after dispatching), return Promise.resolve().
    const net = source(true);
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    let hang = false;
    const { client } = harness((request) => (hang ? 'hang' : server.handler(request)), {
      pollInterval: 1000,
      requestTimeout: 10_000,
      onlineSource: net.online,
    });
    await client.ready();
    hang = true;
    await vi.advanceTimersByTimeAsync(1000);
    net.set(false);
    let settled = false;
    void client.refresh().then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    const atOnce = settled;
    await client.close();
    expect(atOnce).toBe(true);
  });

  it('offline, then a refresh() storm, then online: no request while offline, one fetch on return, every refresh() settles', async () => {
    const net = source(true);
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests, errors } = harness(server.handler, { pollInterval: 60_000, onlineSource: net.online });
    await client.ready();
    net.set(false);
    server.publish(snapshotOf(2, { a: 2 }));
    const settled: number[] = [];
    const storm = Array.from({ length: 20 }, (_, i) => client.refresh().then(() => settled.push(i)));
    await Promise.all(storm);
    expect(settled).toHaveLength(20);
    expect(requests).toHaveLength(1);
    net.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toHaveLength(2);
    expect(client.get('a')).toBe(2);
    // One poll armed, nothing else.
    expect(vi.getTimerCount()).toBe(1);
    expect(errors).toEqual([]);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a refresh() storm online: one snapshot applied, one notification, the aborted requests not reported, one poll timer', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client, requests, errors } = harness(server.handler, { pollInterval: 60_000 });
    await client.ready();
    client.get('a');
    server.publish(snapshotOf(2, { a: 2 }));
    const heard: string[][] = [];
    client.subscribe(({ changed }) => heard.push([...changed]));
    await Promise.all(Array.from({ length: 10 }, () => client.refresh()));
    expect(requests).toHaveLength(11);
    expect(requests.slice(1, -1).every((request) => request.signal.aborted)).toBe(true);
    expect(heard).toEqual([['a']]);
    expect(errors).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    await client.close();
  });
});

describe('re-entrancy from listeners and onError', () => {
  it('close() from one listener: the next listener does not hear the pre-close change after `stopped`', async () => {
    // Was a bug: docs/client.md, close(): "drops every listener" and is "Safe from inside a listener";
    // subscribe: "`listener({ changed, status })` on every change". subscribable.ts emits to a
    // copy of the listener set, so when listener A calls close(), the nested emit of `stopped`
    // reaches B first and then B still hears the outer, older event (status `ready` /
    // `polling`) after close() returned. A consumer keeping `event.status` ends with a status
    // that is no longer true, and a listener runs after the client dropped it. Fix: in emit,
    // skip listeners no longer in the set (`if (listeners.has(listener))`), which also makes an
    // unsubscribe during emit take effect at once; or queue nested emits until the outer ends.
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const { client } = harness(server.handler);
    client.subscribe(() => void client.close());
    const seen: ClientStatus[] = [];
    client.subscribe(({ status }) => seen.push(status));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getStatus().connection).toBe('stopped');
    expect(seen.map((status) => status.connection)).toEqual(['stopped']);
  });

  it('a listener that calls setContext(), setOverrides() and getAll() mid-notification reads consistent values', async () => {
    const server = snapshotServer({ ...snapshotOf(1, { a: 'x' }), flags: { pro: byPlan('pro'), a: snapshotOf(1, { a: 'x' }).flags.a! } });
    const { client, errors } = harness(server.handler, { pollInterval: 1000 });
    const log: Array<{ changed: string[]; pro: unknown; b: unknown; all: unknown; status: string }> = [];
    let once = true;
    // Read before the snapshot arrives: both change when it does.
    client.get('a');
    client.get('pro');
    client.subscribe(({ changed }) => {
      log.push({ changed: [...changed].sort(), pro: client.get('pro'), b: client.get('b'), all: client.getAll(), status: client.getStatus().status });
      if (once) {
        once = false;
        client.setContext({ attributes: { plan: 'pro' } });
        client.setOverrides({ b: 'override' });
      }
    });
    await client.ready();
    // The first change, then the two nested ones, each heard once; every read inside is current.
    expect(log.map((entry) => entry.changed)).toEqual([['a', 'pro'], ['pro'], ['b']]);
    expect(log.map((entry) => [entry.pro, entry.b])).toEqual([
      ['no', undefined],
      ['yes', undefined],
      ['yes', 'override'],
    ]);
    expect(log.map((entry) => entry.all)).toEqual([{ a: 'x', pro: 'no' }, { a: 'x', pro: 'yes' }, { a: 'x', pro: 'yes', b: 'override' }]);
    expect(log.every((entry) => entry.status === 'ready')).toBe(true);
    expect(client.getAll()).toBe(log[2]!.all);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('an onError that calls identify(), refresh(), flush() and setOverrides() on a failed fetch: one retry timer at most, no request storm', async () => {
    const plane = fakeDataPlane(snapshotOf(1, { a: 1 }));
    let down = true;
    let client!: ReturnType<typeof harness>['client'];
    let calls = 0;
    const h = harness((request) => (down && isSnapshot(request) ? response(503, '') : plane.handler(request)), {
      events: true,
      flushInterval: 0,
      pollInterval: 30_000,
      onError: () => {
        calls++;
        void client.identify(`u-${calls}`);
        // Once: an app that refreshes on every failure of a server that fails at once asks for a hot loop.
        if (calls === 1) void client.refresh();
        void client.flush();
        client.setOverrides({ o: calls });
      },
    });
    client = h.client;
    await vi.advanceTimersByTimeAsync(0);
    // The first failure's onError refreshed at once; that fetch failed too. One retry timer waits, beside the ready timeout.
    const snapshotRequests = () => h.requests.filter(isSnapshot).length;
    expect({ snapshots: snapshotRequests(), calls, timers: vi.getTimerCount() }).toEqual({ snapshots: 2, calls: 2, timers: 2 });
    expect(h.client.get('o')).toBe(2);
    expect(h.client.getContext().userId).toBe('u-2');
    down = false;
    // Backoff after two failures: 2 s (jitter 0).
    await vi.advanceTimersByTimeAsync(1999);
    expect(snapshotRequests()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(snapshotRequests()).toBe(3);
    expect(h.client.get('a')).toBe(1);
    expect(h.client.getStatus()).toMatchObject({ status: 'ready', error: null });
    // Once up: one poll armed, nothing else.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(snapshotRequests()).toBe(4);
    await h.client.close();
    expect(vi.getTimerCount()).toBe(0);
    // Nothing onError queued was lost: both identify events, and the two error events.
    const sent = plane.events;
    expect(sent.filter((event) => event.type === 'identify').map((event) => event.userId)).toEqual(['u-1', 'u-2']);
    expect(sent.filter((event) => event.type === 'error')).toHaveLength(2);
  });
});

describe('identity stability across unrelated changes (React relies on it)', () => {
  it('getDetails(a), get(a) and getAll() keep their identity across an override of b, a status-only change and a context change a ignores', async () => {
    const server = snapshotServer(snapshotOf(1, { a: { nested: [1, 2] }, b: 'b' }));
    let fail = false;
    const { client } = harness((request) => (fail ? response(503, '') : server.handler(request)), { pollInterval: 1000 });
    await client.ready();
    const details = client.getDetails('a');
    const value = client.get('a');
    const status = client.getStatus();
    const all = client.getAll();
    // Status only: a failed poll.
    fail = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.getStatus()).not.toBe(status);
    expect(client.getAll()).toBe(all);
    expect(client.getDetails('a')).toBe(details);
    // A context change that leaves every flag as it was.
    const afterFailure = client.getStatus();
    client.setContext({ userId: 'someone' });
    expect(client.getAll()).toBe(all);
    expect(client.getDetails('a')).toBe(details);
    expect(client.getStatus()).toBe(afterFailure);
    // An override of another key: a new getAll(), the same details and value for a.
    client.setOverrides({ b: 'mine' });
    expect(client.getAll()).not.toBe(all);
    expect(client.getAll()).toEqual({ a: { nested: [1, 2] }, b: 'mine' });
    expect(client.getDetails('a')).toBe(details);
    expect(client.get('a')).toBe(value);
    // A new snapshot that changes only b: a's value keeps its identity (its version moves on).
    fail = false;
    server.publish(snapshotOf(2, { a: { nested: [1, 2] }, b: 'b2' }));
    await vi.advanceTimersByTimeAsync(2000);
    expect(client.getStatus().version).toBe(2);
    expect(client.get('a')).toBe(value);
    await client.close();
  });
});

describe('two clients in one page', () => {
  it.fails('two clients that generate their anonymous id on one async storage end up with the id that storage keeps', async () => {
    // KNOWN LIMITATION, documented in docs/events.md ("The anonymous id"); was reported as: docs/events.md, The anonymous id: "persisted under `anonymousStorageKey` … A returning
    // visitor keeps the id, and so their rollout buckets." anonymous-id.ts reads, and on a miss
    // writes its own generated id, with nothing shared between clients: two clients created
    // together on an async storage (React Native AsyncStorage, two SDK keys in one app: the
    // default `anonymousStorageKey` is the same) both miss, both write, the last write wins, and
    // the first client buckets this session with an id the next session will not have. Fix:
    // share the read-or-create per (storage, key) (a module-level WeakMap of pending promises),
    // or after writing, read back and adopt what the storage holds.
    const values = new Map<string, string>();
    const storage: StorageAdapter = {
      get: async (key) => values.get(key) ?? null,
      set: async (key, value) => void values.set(key, value),
      remove: async (key) => void values.delete(key),
    };
    const plane = fakeDataPlane(snapshotOf(1, { a: 1 }));
    const options = { events: true, flushInterval: 0, cache: storage, anonymousId: undefined };
    const first = harness(plane.handler, options);
    const second = harness(plane.handler, { ...options, sdkKey: 'svc_sdk_client_other_key_0001' });
    await Promise.all([first.client.ready(), second.client.ready()]);
    await vi.advanceTimersByTimeAsync(0);
    first.client.get('a');
    second.client.get('a');
    await Promise.all([first.client.close(), second.client.close()]);
    const ids = plane.events.filter((event) => event.type === 'evaluation').map((event) => event.userId);
    expect(ids).toHaveLength(2);
    expect(values.get('svc:anonymousId')).toBe(ids[0]);
    expect(ids[1]).toBe(ids[0]);
  });

  it('two clients of one key in one page share snapshots over the channel without echoing them back', async () => {
    vi.stubGlobal('BroadcastChannel', BusChannel);
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const one = harness(server.handler, { syncTabs: true, pollInterval: 60_000 });
    const two = harness(server.handler, { syncTabs: true, pollInterval: 60_000 });
    await Promise.all([one.client.ready(), two.client.ready()]);
    await vi.advanceTimersByTimeAsync(0);
    const posts = vi.spyOn(BusChannel.prototype, 'postMessage');
    server.publish(snapshotOf(2, { a: 2 }));
    await one.client.refresh();
    await vi.advanceTimersByTimeAsync(0);
    expect(two.client.getStatus()).toMatchObject({ source: 'tab', version: 2 });
    expect(two.client.get('a')).toBe(2);
    // Only the client that fetched publishes; the receiver neither re-publishes nor fetches.
    expect(posts).toHaveBeenCalledTimes(1);
    expect(two.requests).toHaveLength(1);
    // The receiver's next poll sends the shared ETag and gets a 304.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(two.requests.at(-1)!.headers['if-none-match']).toBe('"snapshot-2"');
    await Promise.all([one.client.close(), two.client.close()]);
    expect(BusChannel.open.size).toBe(0);
  });
});
