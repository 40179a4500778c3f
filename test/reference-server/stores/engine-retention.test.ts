// Retention on the real engines behind a running server: Redis keeps the last snapshotVersions
// versions, Postgres prunes old and surplus rows, and GET /admin/v1/diagnostics counts both.
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { demoConfig } from '../../../reference-server/index';
import type { ControlChange } from '../../../reference-server/stores/contracts';
import { openRedisControlStore } from '../../../reference-server/stores/redis-control-store';
import { redisKeys } from '../../../reference-server/stores/redis-keys';
import { SCHEMA_SQL } from '../../../reference-server/stores/postgres-schema';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { waitFor } from '../../helpers/wait-for';
import { admin, call, DEMO, NOW, useServers } from '../helpers';
import { freshPrefix, postgresNeed, redisNeed, usePostgresProcess, useRedisProcess } from './engines-fixture';

const DAY = 24 * 3_600_000;
const flag = (n: number) => ({ on: true, clientSide: true, variations: [n], offVariation: 0, rules: [], fallthrough: { variation: 0 }, salt: 's' });
const evicted = async (server: Parameters<typeof admin>[0]) => ((await (await admin(server, 'GET', '/diagnostics')).json()) as { evicted: Record<string, number> }).evicted;

describeWithBinaries('retention on Redis', [redisNeed], () => {
  const redis = useRedisProcess();
  const servers = useServers();
  const probes: Redis[] = [];
  afterEach(() => {
    for (const probe of probes.splice(0)) probe.disconnect();
  });
  const probe = () => {
    const client = new Redis(redis.url);
    probes.push(client);
    return client;
  };

  it('leaves exactly snapshotVersions versions in Redis after 200 publishes, the current one among them, and serves it', async () => {
    const redisPrefix = freshPrefix();
    const shared = { redis: redis.url, redisPrefix, limits: { snapshotVersions: 7 }, config: { ...demoConfig(), adminToken: DEMO.adminToken } };
    const a = await servers.start({ ...shared, allowDemoCredentials: true });
    const b = await servers.start({ ...shared, allowDemoCredentials: true });
    const keys = redisKeys(redisPrefix);
    const seeded = (await probe().hkeys(keys.snapshots('production'))).length;
    let last = 0;
    for (let n = 0; n < 200; n++) last = (await a.publish('production', { schemaVersion: 1, flags: { n: flag(n) } })).version;

    const fields = (await probe().hkeys(keys.snapshots('production'))).map(Number).sort((x, y) => x - y);
    expect(fields).toEqual(Array.from({ length: 7 }, (_, i) => last - 6 + i));
    expect(Number(await probe().get(keys.current('production')))).toBe(last);
    expect((await evicted(a)).snapshotVersions).toBe(seeded + 200 - 7);
    // B removed nothing from Redis; its copy of the versions is not counted again.
    expect((await evicted(b)).snapshotVersions).toBe(0);

    // Every instance serves the current version: the one that published, the one that heard,
    // and one that loads what is left.
    const c = await servers.start({ ...shared, allowDemoCredentials: true });
    await waitFor(() => b.stores.environments.current('production')?.version === last, 5000, 'B at the last version');
    for (const server of [a, b, c]) {
      const response = await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { version: number; flags: { n: { variations: number[] } } })).toMatchObject({ version: last, flags: { n: { variations: [199] } } });
    }
    expect([...(c.stores.environments.get('production')?.kv.snapshots.keys() ?? [])].sort((x, y) => x - y)).toEqual(fields);
  });

  it('passes on a published version that later publishes removed already as the current one', async () => {
    const prefix = freshPrefix();
    const a = await openRedisControlStore({ url: redis.url, prefix, versionsKept: 2 });
    const b = await openRedisControlStore({ url: redis.url, prefix });
    try {
      const seedSnapshot = { schemaVersion: 1, environmentId: 'production', version: 1, flags: {} };
      await a.seedIfEmpty({ environments: [{ id: 'production', kind: 'production', snapshot: seedSnapshot }], keys: [], traits: [] });
      const heard: ControlChange[] = [];
      b.subscribe((change) => heard.push(change));
      for (let n = 0; n < 4; n++) await a.publish('production', { schemaVersion: 1, environmentId: 'production', flags: {} });
      await waitFor(() => heard.length === 4, 5000, "A's publishes");
      // Version 2 is announced again, as a slow subscriber would hear it after versions 3 to 5.
      await probe().publish(redisKeys(prefix).channel, JSON.stringify({ origin: 'elsewhere', kind: 'published', environmentId: 'production', version: 2 }));
      await waitFor(() => heard.length === 5, 5000, 'the announcement');
      expect(heard[4]).toMatchObject({ kind: 'published', environmentId: 'production', snapshot: { version: 5 } });
      expect((await b.load()).environments[0]?.snapshots.map((s) => s.version)).toEqual([4, 5]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describeWithBinaries('retention on Postgres', [postgresNeed], () => {
  const postgres = usePostgresProcess();
  const servers = useServers();

  it('prunes rows past the age and the counts in the background, counts them in diagnostics, and keeps answering', async () => {
    const url = await postgres.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`BEGIN; ${SCHEMA_SQL} COMMIT;`);
      const now = Date.now();
      const insertEvents = (count: number, at: number) =>
        client.query(
          `INSERT INTO flagplane_analytics_events (environment_id, type, received_at, event)
           SELECT 'production', 'evaluation', $1::timestamptz, jsonb_build_object('key', 'old-' || g) FROM generate_series(1, $2::int) g`,
          [new Date(at), count],
        );
      const insertRows = (count: number, at: number) =>
        client.query(
          `INSERT INTO flagplane_identify_queue (environment_id, user_id, traits, received_at)
           SELECT 'production', 'u-' || g, '{}'::jsonb, $1::timestamptz FROM generate_series(1, $2::int) g`,
          [new Date(at), count],
        );
      // Past the default age of 7 days, then more than the count limits allow.
      await insertEvents(15, now - 8 * DAY);
      await insertEvents(30, now - 1000);
      await insertRows(4, now - 8 * DAY);
      await insertRows(12, now - 1000);

      const server = await servers.start({ allowDemoCredentials: true, postgres: url, limits: { eventsPerKind: 10, identifyRows: 5 } });
      await waitFor(() => server.stores.evictions.events === 35 && server.stores.evictions.identifyRows === 11, 10_000, 'the prune at start');
      expect(await evicted(server)).toMatchObject({ events: 15 + 20, identifyRows: 4 + 7 });
      expect(Number((await client.query('SELECT count(*) AS n FROM flagplane_analytics_events')).rows[0].n)).toBe(10);
      expect(Number((await client.query('SELECT count(*) AS n FROM flagplane_identify_queue')).rows[0].n)).toBe(5);

      const events = [{ type: 'evaluation', key: 'fresh', value: true, reason: 'DEFAULT', userId: 'u' }];
      expect((await call(server, '/sdk/v1/events', { method: 'POST', key: DEMO.prodServerKey, body: { sentAt: NOW(), events } })).status).toBe(202);
      const analytics = (await (await admin(server, 'GET', '/analytics?limit=1')).json()) as { events: Array<{ key: string }> };
      expect(analytics.events.map((event) => event.key)).toEqual(['fresh']);
    } finally {
      await client.end();
    }
  });
});
