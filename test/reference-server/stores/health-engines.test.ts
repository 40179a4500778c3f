// /readyz against real engines: Redis and Postgres stopped, hanging and restarted under a running server.
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../reference-server/index';
import { openPostgresEventStores } from '../../../reference-server/stores/postgres-event-stores';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import type { PostgresProcess } from '../../helpers/postgres-process';
import { startPostgres } from '../../helpers/postgres-process';
import type { RedisProcess } from '../../helpers/redis-process';
import { startRedis } from '../../helpers/redis-process';
import { admin, call, DEMO, errorOf, evaluation, NOW, sleep, useServers } from '../helpers';
import { freshPrefix, postgresNeed, redisNeed } from './engines-fixture';

const TIMEOUT_MS = 1000;

/** One /readyz, its status, body and how long it took. */
async function readyz(server: ReferenceServer) {
  const started = performance.now();
  const response = await fetch(`${server.baseUrl}/readyz`);
  const elapsed = performance.now() - started;
  const body = response.status === 200 ? ((await response.json()) as { status: string; engines: Record<string, { status: string }> }) : await errorOf(response);
  return { status: response.status, body, elapsed };
}

/** Polls /readyz until it answers `status`; every answer comes within the timeout (plus scheduling slack). */
async function readyzUntil(server: ReferenceServer, status: number, withinMs: number) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const answer = await readyz(server);
    expect(answer.elapsed).toBeLessThan(TIMEOUT_MS + 500);
    if (answer.status === status) return answer;
    if (Date.now() > deadline) throw new Error(`/readyz still ${answer.status} after ${withinMs} ms: ${JSON.stringify(answer.body)}`);
    await sleep(50);
  }
}

const healthz = async (server: ReferenceServer) => (await fetch(`${server.baseUrl}/healthz`)).status;

describeWithBinaries('/readyz on Redis and Postgres', [redisNeed, postgresNeed], () => {
  let redis: RedisProcess;
  let postgres: PostgresProcess;
  beforeAll(async () => {
    if (redisNeed.kind !== 'run' || postgresNeed.kind !== 'run') return;
    [redis, postgres] = await Promise.all([startRedis(redisNeed.path), startPostgres(postgresNeed.path)]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([redis?.stop(), postgres?.stop()]);
  });
  const servers = useServers();

  it('turns 503 naming Redis, then Postgres, while each is stopped, and 200 again once each is back', async () => {
    const server = await servers.start({ allowDemoCredentials: true, redis: redis.url, redisPrefix: freshPrefix(), postgres: await postgres.createDatabase(), readinessTimeoutMs: TIMEOUT_MS });
    const up = await readyz(server);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ready', engines: { redis: { status: 'up' }, postgres: { status: 'up' } } });

    await redis.halt();
    const redisDown = await readyzUntil(server, 503, 3000);
    expect(redisDown.body).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^not ready: redis refused \(the Redis connection is (connecting|reconnecting)\)$/) });
    expect((redisDown.body as { message: string }).message).not.toContain('postgres');
    expect(await healthz(server)).toBe(200);
    await redis.restart();
    await readyzUntil(server, 200, 5000);

    await postgres.halt();
    const postgresDown = await readyzUntil(server, 503, 3000);
    expect(postgresDown.body).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^not ready: postgres refused \(Postgres did not answer: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/) });
    expect(await healthz(server)).toBe(200);
    await postgres.restart();
    await readyzUntil(server, 200, 5000);
    // The pool opened new connections: events reach Postgres again.
    const posted = await call(server, '/sdk/v1/events', { key: DEMO.prodServerKey, method: 'POST', body: { sentAt: NOW(), events: [evaluation('after-restart')] } });
    expect(posted.status).toBe(202);
    const { events } = (await (await admin(server, 'GET', '/analytics')).json()) as { events: Array<{ key: string }> };
    expect(events.map((event) => event.key)).toContain('after-restart');
  }, 30_000);

  it('answers 503 "timed out" within the timeout while Redis hangs, sending it one PING however many probes wait', async () => {
    const server = await servers.start({ allowDemoCredentials: true, redis: redis.url, redisPrefix: freshPrefix(), readinessTimeoutMs: 300 });
    const probe = new Redis(redis.url);
    try {
      await probe.config('RESETSTAT');
      redis.signal('SIGSTOP');
      const answers = await Promise.all(Array.from({ length: 10 }, async () => {
        const started = performance.now();
        const response = await fetch(`${server.baseUrl}/readyz`);
        return { status: response.status, error: await errorOf(response), elapsed: performance.now() - started };
      }));
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.error.message).toBe('not ready: redis timed out (no answer within 300 ms)');
        expect(answer.elapsed).toBeLessThan(300 + 700);
      }
      redis.signal('SIGCONT');
      await sleep(200);
      const stats = await probe.info('commandstats');
      expect(/cmdstat_ping:calls=(\d+)/.exec(stats)?.[1]).toBe('1');
      expect((await readyz(server)).status).toBe(200);
    } finally {
      redis.signal('SIGCONT');
      probe.disconnect();
    }
  });

  it('answers 503 "shutting down" to a probe in flight when close() begins', async () => {
    const server = await servers.start({ allowDemoCredentials: true, redis: redis.url, redisPrefix: freshPrefix(), readinessTimeoutMs: TIMEOUT_MS });
    redis.signal('SIGSTOP');
    try {
      const inFlight = fetch(`${server.baseUrl}/readyz`);
      await sleep(100);
      const closing = server.close();
      const response = await inFlight;
      expect(response.status).toBe(503);
      expect(await errorOf(response)).toEqual({ code: 'unavailable', message: 'not ready: the instance is shutting down' });
      redis.signal('SIGCONT');
      await closing;
    } finally {
      redis.signal('SIGCONT');
    }
  });

  it('holds one pooled Postgres connection for 20 concurrent pings', async () => {
    const url = await postgres.createDatabase();
    const stores = await openPostgresEventStores({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? stores.analytics : stores.identifyQueue).ping()));
      const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'flagplane' AND datname = current_database()");
      expect(rows[0].n).toBe(1);
    } finally {
      await client.end();
      await stores.close();
    }
  });
});
