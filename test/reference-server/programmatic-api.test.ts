/** startReferenceServer's programmatic API: what it copies, what it refuses, and after close(). */
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ReferenceServer, ReferenceServerOptions, ServerConfig } from '../../reference-server/index';
import demo from '../../reference-server/demo.json';
import { call, DEMO, empty, evaluation, NOW, sleep, useServers } from './helpers';

const servers = useServers();

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
