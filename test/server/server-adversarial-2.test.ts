/**
 * Second adversarial review of the reference server: the admin routes and the stores behind
 * them, routing of events by environment kind, the stream gateway under interleavings, and
 * the programmatic API. Probes already in server-adversarial.test.ts are not repeated.
 * Tests marked `it.fails` demonstrate a bug; each quotes the sentence it contradicts.
 */
import { describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { ReferenceServer, ReferenceServerOptions, ServerConfig } from '../../reference-server/index';
import demo from '../../reference-server/demo.json';
import { admin, call, DEMO, errorOf, NOW, sleep, useServers, withTimeout } from './helpers';

const servers = useServers();
const empty = { schemaVersion: 1, flags: {} };

/** JSON nested `depth` arrays deep: small on the wire, deeper than V8's recursive serialisers can go. */
function deepJson(depth = 100_000): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

function postRaw(server: ReferenceServer, rawBody: string, key: string = DEMO.prodClientKey): Promise<Response> {
  return call(server, '/sdk/v1/events', { key, method: 'POST', rawBody, headers: { 'content-type': 'application/json' } });
}

const evaluation = (key = 'new-checkout') => ({ type: 'evaluation', key, reason: 'FALLTHROUGH', value: true, userId: 'u-1' });

describe('routing by environment kind (protocol.md §4)', () => {
  // Events are routed by what an environment is, not by what it is called: a config may name a
  // staging environment "production".
  const config = (): ServerConfig => ({
    adminToken: 'admin-token-for-tests',
    environments: [
      {
        id: 'production',
        kind: 'staging',
        keys: [{ key: 'svc_sdk_client_misnamed_0001', kind: 'client' }],
        snapshot: { schemaVersion: 1, version: 1, environmentId: 'x', flags: {} },
      },
      {
        id: 'eu-live',
        kind: 'production',
        keys: [{ key: 'svc_sdk_client_eulive_0001', kind: 'client' }],
        snapshot: { schemaVersion: 1, version: 1, environmentId: 'x', flags: {} },
      },
    ],
  });

  it('sends evaluations to analytics by the environment’s kind, for configured and created keys alike', async () => {
    const server = await servers.start({ config: config() });
    const created = await server.createKey('eu-live', 'server');
    const batch = { sentAt: NOW(), events: [evaluation(), { type: 'identify', userId: 'u-1', traits: { plan: 'pro' } }] };
    for (const key of ['svc_sdk_client_misnamed_0001', 'svc_sdk_client_eulive_0001', created]) {
      const response = await call(server, '/sdk/v1/events', { key, method: 'POST', body: batch });
      expect(response.status).toBe(202);
    }
    expect(server.stores.analytics.events.map((e) => e.environmentId)).toEqual(['eu-live', 'eu-live']);
    expect(server.stores.diagnostics.events.map((e) => `${e.environmentId}:${e.type}`)).toEqual(['production:evaluation']);
    expect(server.stores.identifyQueue.rows.map((r) => r.environmentId)).toEqual(['production', 'eu-live', 'eu-live']);

    // The admin listings read the same stores.
    expect((await (await admin(server, 'GET', '/analytics')).json()).events).toEqual(server.stores.analytics.events);
    const queue = await (await admin(server, 'GET', '/environments/eu-live/identify-queue')).json();
    expect(queue.rows.map((r: { id: number }) => r.id)).toEqual([2, 3]);
  });

  it('lets no event member override where or when it was stored', async () => {
    const server = await servers.start();
    const spoofed = { ...evaluation(), environmentId: 'staging', receivedAt: '2000-01-01T00:00:00Z' };
    await call(server, '/sdk/v1/events', { key: DEMO.prodClientKey, method: 'POST', body: { sentAt: NOW(), events: [spoofed] } });
    await call(server, '/sdk/v1/events', {
      key: DEMO.stagingClientKey,
      method: 'POST',
      body: { sentAt: NOW(), events: [{ ...evaluation(), environmentId: 'production' }] },
    });
    expect(server.stores.analytics.events).toHaveLength(1);
    expect(server.stores.analytics.events[0]).toMatchObject({ environmentId: 'production' });
    expect(server.stores.analytics.events[0]!.receivedAt).not.toBe('2000-01-01T00:00:00Z');
    expect(server.stores.diagnostics.events.map((e) => e.environmentId)).toEqual(['staging']);
  });
});

describe('stored values the admin listings cannot serialise', () => {
  // Any SDK key, including a client key shipped in a public browser bundle, can store a value
  // nested deeper than JSON.stringify recurses (200 KB, under the 256 KiB limit). The batch is
  // accepted with 202, and from then on every request for the admin listing of that store has its
  // connection dropped without an answer (see the router test below): every event in it, good
  // ones included, is unreadable through the admin API. protocol.md §7: "GET /admin/v1/analytics
  // | none | 200 { events: [...] }" (likewise diagnostics and identify-queue).
  const cases: Array<[string, string, (deep: string) => string, string]> = [
    [
      'an evaluation value',
      '/analytics',
      (deep) => `{"type":"evaluation","key":"k","reason":"R","value":${deep},"userId":"u"}`,
      'events',
    ],
    ['identify traits', '/environments/production/identify-queue', (deep) => `{"type":"identify","userId":"u","traits":{"t":${deep}}}`, 'rows'],
    ['an unknown member of an error event', '/diagnostics', (deep) => `{"type":"error","message":"m","extra":${deep}}`, 'events'],
  ];
  for (const [name, listing, event, member] of cases) {
    it(`keeps ${listing} readable after a batch with ${name} nested 100000 deep`, async () => {
      const internal = vi.fn();
      const server = await servers.start({ onInternalError: internal });
      await postRaw(server, `{"sentAt":"${NOW()}","events":[${event(deepJson())}]}`);
      const good = { sentAt: NOW(), events: [evaluation(), { type: 'identify', userId: 'ok', traits: {} }, { type: 'error', message: 'ok' }] };
      expect((await call(server, '/sdk/v1/events', { key: DEMO.prodClientKey, method: 'POST', body: good })).status).toBe(202);
      const response = await admin(server, 'GET', listing);
      expect(internal).not.toHaveBeenCalled();
      expect(response.status).toBe(200);
      expect((await response.json())[member].length).toBeGreaterThanOrEqual(1);
    });
  }

  // protocol.md §5: "500 | internal | a bug; the process stays up". An admin body nested deeper
  // than structuredClone recurses is bad input (400 invalid_request), as the config loader already
  // treats it ("a config nested too deeply to copy" is an invalid config, reference-server.md).
  it('answers a published snapshot nested too deep to copy with a 4xx, not 500, and keeps the current one', async () => {
    const internal = vi.fn();
    const server = await servers.start({ onInternalError: internal });
    const response = await call(server, '/admin/v1/environments/production/snapshot', {
      key: server.adminToken,
      method: 'PUT',
      rawBody: `{"schemaVersion":1,"flags":{"deep":${deepJson()}}}`,
    });
    expect(server.stores.environments.get('production')!.kv.current).toBe(1);
    expect(internal).not.toHaveBeenCalled();
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('invalid_request');
  });

  it('answers a trait overlay nested too deep to copy with a 4xx, not 500', async () => {
    const internal = vi.fn();
    const server = await servers.start({ onInternalError: internal });
    const response = await call(server, '/admin/v1/environments/production/traits/u-7', {
      key: server.adminToken,
      method: 'PUT',
      rawBody: `{"plan":${deepJson()}}`,
    });
    expect(internal).not.toHaveBeenCalled();
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('invalid_request');
  });
});

describe('a response body that cannot be serialised', () => {
  // router.ts serialises the body in writeResult, outside the try that turns a throw into 500, so
  // the RangeError/TypeError rejects respond() and its catch destroys the socket: the client gets
  // no status and no body at all. protocol.md §5: "Every non-2xx, non-304 response from every
  // route has this body" and "500 | internal | a bug; the process stays up". The stores are
  // writable by tests (EventLog.append), which is how this value gets in here.
  it('is answered with 500 internal and the error shape, not a dropped connection', async () => {
    const internal = vi.fn();
    const server = await servers.start({ onInternalError: internal });
    server.stores.diagnostics.append({ type: 'error', environmentId: 'production', receivedAt: NOW(), n: 1n });
    const response = await admin(server, 'GET', '/diagnostics').catch((error: unknown) => error as Error);
    expect(internal).toHaveBeenCalledTimes(1);
    expect(response).toBeInstanceOf(Response);
    expect((response as Response).status).toBe(500);
    expect((await errorOf(response as Response)).code).toBe('internal');
  });
});

describe('programmatic API', () => {
  it('copies what publish() and setTraits() are given: later mutation changes nothing served', async () => {
    const server = await servers.start();
    const snapshot = { schemaVersion: 1, flags: { a: { on: true, clientSide: true } } as Record<string, unknown> };
    const traits = { plan: 'pro', tags: ['x'] };
    expect(await server.publish('production', snapshot)).toEqual({ version: 2 });
    server.setTraits('production', 'u-1', traits);
    snapshot.flags.b = { on: true, clientSide: true };
    (snapshot.flags.a as { on: boolean }).on = false;
    traits.tags.push('y');
    traits.plan = 'free';

    const served = await (await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).json();
    expect(served.flags).toEqual({ a: { on: true, clientSide: true } });
    const identity = await (await call(server, '/sdk/v1/identity?userId=u-1')).json();
    expect(identity.traits).toEqual({ plan: 'pro', tags: ['x'] });
    expect(server.stores.environments.get('production')!.kv.snapshots.get(2)).toMatchObject({ version: 2, environmentId: 'production' });
  });

  it('does not share the config object it was started with', async () => {
    const config = structuredClone(demo) as unknown as ServerConfig;
    const server = await servers.start({ config });
    config.environments[0]!.snapshot.flags = {};
    config.environments[0]!.keys.length = 0;
    config.environments[0]!.traits = {};
    const served = await (await call(server, '/sdk/v1/snapshot', { key: DEMO.prodServerKey })).json();
    expect(Object.keys(served.flags).length).toBeGreaterThan(0);
    const identity = await (await call(server, '/sdk/v1/identity?userId=user-42')).json();
    expect(Object.keys(identity.traits).length).toBeGreaterThan(0);
  });

  // The quality bar: "bad input gets a clear error ... and loses nothing (last good snapshot
  // stays)". publish() checks only the envelope, so a flag holding a value JSON cannot carry (a
  // BigInt, a cycle) is stored as current, and from then on every GET /sdk/v1/snapshot of that
  // environment has its connection dropped: the last good snapshot is no longer served to anyone.
  it('refuses a snapshot JSON cannot carry instead of dropping every snapshot request from then on', async () => {
    const server = await servers.start();
    const cyclic: Record<string, unknown> = { on: true, clientSide: true };
    cyclic.self = cyclic;
    let threw = false;
    try {
      await server.publish('production', { schemaVersion: 1, flags: { big: { on: true, clientSide: true, n: 1n }, cyclic } });
    } catch {
      threw = true;
    }
    const response = await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey });
    expect(response.status).toBe(200);
    expect(threw).toBe(true);
  });

  /** Starts a server, or returns the RangeError it refused the options with. */
  async function startOrRefuse(options: ReferenceServerOptions): Promise<ReferenceServer | RangeError> {
    try {
      return await servers.start(options);
    } catch (error) {
      if (error instanceof RangeError) return error;
      throw error;
    }
  }

  // setTimeout/setInterval clamp any delay above 2^31 - 1 ms to 1 ms. reference-server.md:
  // "heartbeatMs | 15000 | interval of the application ping on the stream (announced in
  // connected)". A test that passes a huge heartbeatMs to keep pings out of the way gets a ping
  // every millisecond instead. Either refuse it with a RangeError (as 0 and Infinity are) or honour it.
  it('neither pings every millisecond nor accepts a heartbeatMs above 2^31 - 1', async () => {
    const server = await startOrRefuse({ heartbeatMs: 2 ** 31 });
    if (server instanceof RangeError) return;
    const client = servers.connect(server);
    expect(await client.next('connected')).toMatchObject({ heartbeatMs: 2 ** 31 });
    await sleep(200);
    expect(client.ofType('ping')).toEqual([]);
  });

  // Same clamp for the transport heartbeat: "transportPingMs | 30000 | interval of WebSocket ping
  // frames; a socket that missed the previous one is terminated". At a 1 ms interval a healthy
  // client that answers every ping is terminated because its pong is still in flight.
  it('does not terminate healthy sockets when transportPingMs is above 2^31 - 1', async () => {
    const server = await startOrRefuse({ transportPingMs: 2 ** 31, heartbeatMs: 60_000 });
    if (server instanceof RangeError) return;
    const clients = Array.from({ length: 5 }, () => servers.connect(server));
    await Promise.all(clients.map((c) => c.next('connected')));
    await sleep(500);
    expect(clients.map((c) => c.ws.readyState)).toEqual(clients.map(() => WebSocket.OPEN));
  });

  it('keeps its stores readable and its actions harmless after close()', async () => {
    const server = await servers.start();
    await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt: NOW(), events: [evaluation()] } });
    await server.close();
    expect(server.stores.analytics.events).toHaveLength(1);
    expect(await server.publish('production', empty)).toEqual({ version: 2 });
    expect(await server.resync('production')).toEqual({ notified: 0 });
    const key = await server.createKey('staging', 'client');
    server.revokeKey(key);
    expect(server.stores.keys.get(key)?.revoked).toBe(true);
    await expect(server.close()).resolves.toBeUndefined();
  });
});

describe('stream interleavings', () => {
  it('announces in connected the version published while authentication was slow, and nothing before it', async () => {
    const server = await servers.start({ connectedDelayMs: 300 });
    const client = servers.connect(server);
    await client.opened;
    server.publish('production', empty);
    server.publish('production', empty);
    server.resync('production');
    const first = await client.next();
    expect(first).toMatchObject({ type: 'connected', environmentId: 'production', version: 3 });
    client.send({ type: 'subscribe', environmentId: 'production', lastKnownVersion: 3 });
    await client.barrier();
    expect(client.messages).toHaveLength(1);
  });

  it('sends a subscriber that joins mid-burst strictly increasing versions ending at the last one', async () => {
    const server = await servers.start();
    const early = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    const late = servers.connect(server, { key: DEMO.prodServerKey });
    await late.next('connected');
    const total = 60;
    for (let i = 0; i < total; i++) {
      server.publish('production', { schemaVersion: 1, flags: {}, n: i });
      if (i === 20) late.send({ type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await early.barrier();
    await late.barrier();
    const final = total + 1;
    expect(early.ofType('snapshot.updated').map((m) => m.version)).toEqual(Array.from({ length: total }, (_, i) => i + 2));
    const lateVersions = late.ofType('snapshot.updated').map((m) => m.version as number);
    expect(lateVersions.at(-1)).toBe(final);
    expect(lateVersions.every((v, i) => i === 0 || v > lateVersions[i - 1]!)).toBe(true);
    const served = await (await call(server, '/sdk/v1/snapshot')).json();
    expect(served).toMatchObject({ version: final, n: total - 1 });
  });

  it('gives concurrent admin publishes distinct versions, each announced once and in order', async () => {
    const server = await servers.start();
    const client = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => admin(server, 'PUT', '/environments/production/snapshot', { schemaVersion: 1, flags: {}, n: i })),
    );
    const versions = (await Promise.all(responses.map((r) => r.json()))).map((b: { version: number }) => b.version);
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    await client.barrier();
    expect(client.ofType('snapshot.updated').map((m) => m.version)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const kv = server.stores.environments.get('production')!.kv;
    expect(kv.current).toBe(21);
    expect(new Set([...kv.snapshots.values()].map((snapshot) => (snapshot as { n?: number }).n)).size).toBe(21);
  });

  it('counts in resync only the subscribed streams, not connected or authenticating ones', async () => {
    const server = await servers.start();
    const subscribed = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    const connectedOnly = servers.connect(server, { key: DEMO.prodServerKey });
    await connectedOnly.next('connected');
    const otherEnvironment = await servers.subscribe(server, DEMO.stagingClientKey, 'staging', 1);
    const response = await admin(server, 'POST', '/environments/production/resync');
    expect(await response.json()).toEqual({ environmentId: 'production', notified: 1 });
    expect(await subscribed.next('snapshot.resync')).toEqual({ type: 'snapshot.resync', environmentId: 'production', version: 1, reason: 'operator' });
    await connectedOnly.barrier();
    await otherEnvironment.barrier();
    expect(connectedOnly.ofType('snapshot.resync')).toEqual([]);
    expect(otherEnvironment.ofType('snapshot.resync')).toEqual([]);
  });

  it('keeps a subscription that was answered with resync, and notifies it of later publishes', async () => {
    const server = await servers.start();
    const ahead = await servers.subscribe(server, DEMO.prodClientKey, 'production', 7);
    expect(await ahead.next()).toMatchObject({ type: 'snapshot.resync', reason: 'ahead-of-server', version: 1 });
    server.publish('production', empty);
    expect(await ahead.next()).toEqual({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
  });

  it('sends a stream revoked mid-burst only the updates published before the revocation', async () => {
    const server = await servers.start();
    const key = await server.createKey('production', 'client');
    const client = await servers.subscribe(server, key, 'production', 1);
    for (let i = 0; i < 3; i++) server.publish('production', empty);
    server.revokeKey(key);
    for (let i = 0; i < 3; i++) server.publish('production', empty);
    expect((await withTimeout(client.closed, 1000, '4403')).code).toBe(4403);
    expect(client.ofType('snapshot.updated').map((m) => m.version)).toEqual([2, 3, 4]);
    expect(server.stores.environments.get('production')!.kv.current).toBe(7);
  });

  it('terminates a socket that never answers transport pings even while it is still authenticating', async () => {
    const server = await servers.start({ connectedDelayMs: 60_000, transportPingMs: 80, heartbeatMs: 60_000 });
    const silent = servers.connect(server, { wsOptions: { autoPong: false } });
    const healthy = servers.connect(server, { key: DEMO.stagingClientKey });
    await silent.opened;
    await healthy.opened;
    expect((await withTimeout(silent.closed, 5000, 'termination')).code).toBe(1006);
    // A few more ping rounds for the healthy socket to survive.
    await new Promise((resolve) => setTimeout(resolve, 3 * 80));
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    expect(healthy.messages).toEqual([]);
  });

  it('keeps pinging and notifying a client that never answers application pings', async () => {
    const server = await servers.start({ heartbeatMs: 40 });
    const mute = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    await mute.next('ping', 3000);
    await mute.next('ping', 3000);
    await mute.next('ping', 3000);
    server.publish('production', empty);
    expect(await mute.next('snapshot.updated')).toMatchObject({ version: 2 });
  });
});
