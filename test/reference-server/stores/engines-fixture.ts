import { afterAll, beforeAll } from 'vitest';
import { binaryAvailability, postgresBinDir, redisServerPath } from '../../helpers/engine-binaries';
import type { PostgresProcess } from '../../helpers/postgres-process';
import { startPostgres } from '../../helpers/postgres-process';
import type { RedisProcess } from '../../helpers/redis-process';
import { startRedis } from '../../helpers/redis-process';

export const redisNeed = binaryAvailability('redis-server', redisServerPath());
export const postgresNeed = binaryAvailability('Postgres (initdb and pg_ctl)', postgresBinDir());

/** A redis-server for the enclosing describe; `url` is read inside tests. */
export function useRedisProcess() {
  let redis: RedisProcess | undefined;
  beforeAll(async () => {
    if (redisNeed.kind === 'run') redis = await startRedis(redisNeed.path);
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return {
    get url() {
      if (!redis) throw new Error('redis-server is not running');
      return redis.url;
    },
  };
}

/** A Postgres cluster for the enclosing describe; each test asks for its own database. */
export function usePostgresProcess() {
  let postgres: PostgresProcess | undefined;
  beforeAll(async () => {
    if (postgresNeed.kind === 'run') postgres = await startPostgres(postgresNeed.path);
  }, 30_000);
  afterAll(async () => {
    await postgres?.stop();
  });
  return {
    createDatabase() {
      if (!postgres) throw new Error('Postgres is not running');
      return postgres.createDatabase();
    },
  };
}

let prefixes = 0;
/** A Redis key prefix no other test of the run uses. */
export function freshPrefix(): string {
  prefixes += 1;
  return `flagplane-test-${process.pid}-${prefixes}:`;
}
