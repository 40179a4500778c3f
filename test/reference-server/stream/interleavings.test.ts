/** The stream while publishes, revocations and slow authentication interleave. */
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { admin, call, DEMO, empty, useServers, withTimeout } from '../helpers';

const servers = useServers();

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
