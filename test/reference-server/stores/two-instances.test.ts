// Two reference servers sharing one Redis and one Postgres: what one does, the other serves.
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { wsTransport } from '../../../adapters/ws';
import type { ReferenceServer, ServerConfig } from '../../../reference-server/index';
import { demoConfig } from '../../../reference-server/index';
import { createClient } from '../../../src/client';
import type { FlagsClient } from '../../../src/client-types';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { waitFor } from '../../helpers/wait-for';
import { admin, call, DEMO, NOW, useServers } from '../helpers';
import { freshPrefix, postgresNeed, redisNeed, usePostgresProcess, useRedisProcess } from './engines-fixture';

describeWithBinaries('two instances on one Redis and one Postgres', [redisNeed, postgresNeed], () => {
  const redis = useRedisProcess();
  const postgres = usePostgresProcess();
  const servers = useServers();
  const clients: FlagsClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  /** A deployment: its own Redis prefix and database; `start` starts one more instance of it. */
  async function deployment() {
    const shared = { redis: redis.url, redisPrefix: freshPrefix(), postgres: await postgres.createDatabase() };
    return { ...shared, start: (config: ServerConfig = demoConfig()) => servers.start({ ...shared, config: { ...config, adminToken: DEMO.adminToken }, allowDemoCredentials: true }) };
  }

  const streamingClient = async (server: ReferenceServer, sdkKey: string) => {
    const client = createClient({ sdkKey, baseUrl: server.baseUrl, streamUrl: server.baseUrl, streamTransport: wsTransport, pollInterval: 600_000, events: false });
    clients.push(client);
    await waitFor(() => client.getStatus().connection === 'streaming' && client.getStatus().version !== null, 5000, 'a streaming client');
    return client;
  };

  it("delivers a flag published through A's admin API to a client streaming from B within a second", async () => {
    const plane = await deployment();
    const a = await plane.start();
    const b = await plane.start();
    expect(a.engines).toEqual({ control: 'redis', events: 'postgres' });
    const client = await streamingClient(b, DEMO.prodClientKey);
    const before = client.getStatus().version ?? 0;

    const started = performance.now();
    const response = await admin(a, 'PUT', '/environments/production/flags/from-a', { on: true, clientSide: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 's' });
    expect(response.status).toBe(200);
    const { version } = (await response.json()) as { version: number };
    expect(version).toBe(before + 1);
    await waitFor(() => client.getStatus().version === version, 1000, "B's client at the version A published");
    const elapsed = performance.now() - started;
    expect(client.get('from-a')).toBe(true);
    expect(elapsed).toBeLessThan(1000);
    console.info(`publish through A → client of B at version ${version}: ${elapsed.toFixed(1)} ms`);
  });

  it("closes B's streams of a key revoked through A with 4403, and B answers 401", async () => {
    const plane = await deployment();
    const a = await plane.start();
    const b = await plane.start();
    const stream = await servers.subscribe(b, DEMO.prodClientKey, 'production', 1);
    expect((await call(b, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).status).toBe(200);

    expect((await admin(a, 'DELETE', `/keys/${DEMO.prodClientKey}`)).status).toBe(204);
    expect((await stream.closed).code).toBe(4403);
    expect((await call(b, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).status).toBe(401);
    expect((await call(b, '/sdk/v1/snapshot', { key: DEMO.prodServerKey })).status).toBe(200);
  });

  it("catches up on what B's subscriber missed while Redis had cut it off", async () => {
    const plane = await deployment();
    const a = await plane.start();
    const b = await plane.start();
    const stream = await servers.subscribe(b, DEMO.prodClientKey, 'production', 1);
    const probe = new Redis(redis.url);
    try {
      // Every subscriber reconnects after a retry delay; the publish lands in that gap.
      await probe.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      const { version } = await a.publish('production', { schemaVersion: 1, flags: {} });
      expect(await stream.next('snapshot.updated')).toEqual({ type: 'snapshot.updated', environmentId: 'production', version });
      expect(b.stores.environments.current('production')?.version).toBe(version);
    } finally {
      probe.disconnect();
    }
  });

  it('loses no update when A and B edit flags at the same time', async () => {
    const plane = await deployment();
    const a = await plane.start();
    const b = await plane.start();
    const flag = { on: true, clientSide: false, variations: [1, 2], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 's' };
    const edits = Array.from({ length: 10 }, (_, i) => [
      admin(a, 'PUT', `/environments/staging/flags/a-${i}`, flag),
      admin(b, 'PUT', `/environments/staging/flags/b-${i}`, flag),
    ]).flat();
    const answers = await Promise.all(edits);
    expect(answers.map((r) => r.status), await Promise.all(answers.filter((r) => r.status !== 200).map((r) => r.clone().text())).then(String)).toEqual(answers.map(() => 200));
    const versions = await Promise.all(answers.map(async (r) => ((await r.json()) as { version: number }).version));
    expect(new Set(versions).size).toBe(20);
    for (const server of [a, b]) {
      await waitFor(() => server.stores.environments.current('staging')?.version === Math.max(...versions));
      const flags = Object.keys(server.stores.environments.current('staging')?.flags ?? {});
      expect(flags.filter((key) => /^[ab]-\d$/.test(key))).toHaveLength(20);
    }
  });

  it('loses no snapshot, key, revocation, trait or queued event when both restart', async () => {
    const plane = await deployment();
    let a = await plane.start();
    let b = await plane.start();
    const published = await a.publish('production', { schemaVersion: 1, flags: { kept: { on: true, clientSide: true, variations: ['x'], offVariation: 0, rules: [], fallthrough: { variation: 0 } } } });
    const newKey = await b.createKey('staging', 'server');
    await a.revokeKey(DEMO.stagingClientKey);
    await b.setTraits('production', 'user-7', { plan: 'enterprise' });
    const events = [
      { type: 'identify', userId: 'user-7', traits: { plan: 'pro' } },
      { type: 'evaluation', key: 'kept', value: 'x', reason: 'FALLTHROUGH', userId: 'user-7' },
    ];
    expect((await call(b, '/sdk/v1/events', { method: 'POST', key: DEMO.prodServerKey, body: { sentAt: NOW(), events } })).status).toBe(202);
    const snapshotBefore = await (await call(a, '/sdk/v1/snapshot')).json();
    await Promise.all([a.close(), b.close()]);

    a = await plane.start();
    b = await plane.start();
    for (const server of [a, b]) {
      expect(await (await call(server, '/sdk/v1/snapshot')).json()).toEqual(snapshotBefore);
      expect((await call(server, '/sdk/v1/snapshot', { key: newKey })).status).toBe(200);
      expect((await call(server, '/sdk/v1/snapshot', { key: DEMO.stagingClientKey })).status).toBe(401);
      expect(await (await call(server, '/sdk/v1/identity?userId=user-7')).json()).toEqual({ userId: 'user-7', traits: { plan: 'enterprise' } });
    }
    const queue = (await (await admin(a, 'GET', '/environments/production/identify-queue')).json()) as { rows: Array<{ id: number; userId: string }> };
    expect(queue.rows.map((row) => row.userId)).toEqual(['user-7']);
    const analytics = (await (await admin(b, 'GET', '/analytics?limit=10')).json()) as { events: Array<{ key: string }> };
    expect(analytics.events.map((event) => event.key)).toEqual(['kept']);

    const claimed = (await (await admin(b, 'POST', '/environments/production/identify-queue/claim', { limit: 10 })).json()) as { rows: Array<{ id: number }> };
    expect(claimed.rows.map((row) => row.id)).toEqual(queue.rows.map((row) => row.id));
    expect(await (await admin(a, 'POST', '/environments/production/identify-queue/claim', {})).json()).toEqual({ rows: [] });
    expect(await (await admin(a, 'POST', '/environments/production/identify-queue/ack', { ids: [queue.rows[0]?.id] })).json()).toEqual({ deleted: 1 });
    expect(await (await admin(b, 'GET', '/environments/production/identify-queue')).json()).toEqual({ rows: [] });
  });

  it('seeds an empty store from the config only: a later config applies nothing', async () => {
    const plane = await deployment();
    const first = await plane.start();
    await first.close();
    const other = demoConfig();
    const production = other.environments[0]!;
    production.snapshot = { ...production.snapshot, version: 40, flags: {} };
    production.keys.push({ key: 'svc_sdk_server_late_config_01', kind: 'server' });
    const second = await plane.start(other);
    expect(second.stores.environments.current('production')?.version).toBe(1);
    expect((await call(second, '/sdk/v1/snapshot', { key: 'svc_sdk_server_late_config_01' })).status).toBe(401);
  });

  it('releases every Redis connection and the Postgres pool on close()', async () => {
    const plane = await deployment();
    const servers = [await plane.start(), await plane.start()];
    const probe = new Redis(redis.url);
    const database = new pg.Client({ connectionString: plane.postgres });
    await database.connect();
    try {
      const redisClients = async () => ((await probe.client('LIST')) as string).split('\n').filter((line) => / name=flagplane-/.test(line)).length;
      const postgresClients = async () =>
        Number((await database.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'flagplane'")).rows[0].n);
      // flagplane-command, flagplane-subscriber and flagplane-instances, per instance.
      expect(await redisClients()).toBe(6);
      expect(await postgresClients()).toBeGreaterThan(0);
      await Promise.all(servers.map((server) => server.close()));
      await expect.poll(redisClients, { timeout: 2000 }).toBe(0);
      await expect.poll(postgresClients, { timeout: 2000 }).toBe(0);
    } finally {
      probe.disconnect();
      await database.end();
    }
  });
});
