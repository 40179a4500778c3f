import type { Pool, QueryResultRow } from 'pg';
import type { ClaimedRow, IdentifyRow, StoredEvent, StoredTraits } from './records';
import type { AnalyticsStore, IdentifyQueueStore } from './contracts';
import { EngineError, redactUrl } from './engine-error';
import type { ModuleImporter } from './optional-package';
import { loadOptionalPackage } from './optional-package';
import type { LogPage } from './bounded-log';
import { singleFlight } from './single-flight';
import {
  ACK_IDENTIFY_SQL,
  PAGE_ANALYTICS_SQL,
  PAGE_IDENTIFY_SQL,
  CLAIM_IDENTIFY_SQL,
  INSERT_ANALYTICS_SQL,
  INSERT_IDENTIFY_SQL,
  LIST_ANALYTICS_SQL,
  LIST_IDENTIFY_SQL,
  SCHEMA_SQL,
} from './postgres-schema';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Errors of idle pooled connections. @default ignore */
  onError?: (error: unknown) => void;
  importer?: ModuleImporter;
}

/** The identify queue and the analytics store on one Postgres pool. */
export interface PostgresEventStores {
  readonly identifyQueue: IdentifyQueueStore;
  readonly analytics: AnalyticsStore;
  /** Ends the pool. */
  close(): Promise<void>;
}

/** A page from `limit + 1` rows, newest first: one more than asked means older rows remain. */
function pageOf<T>(rows: QueryResultRow[], limit: number, entryOf: (row: QueryResultRow) => T): LogPage<T> {
  const entries = rows.slice(0, limit).map((row) => ({ seq: Number(row.id), entry: entryOf(row) }));
  return { entries: entries.reverse(), more: rows.length > limit };
}

function identifyRow(row: QueryResultRow): IdentifyRow {
  return {
    id: Number(row.id),
    environmentId: row.environment_id as string,
    userId: row.user_id as string,
    traits: row.traits as StoredTraits,
    receivedAt: (row.received_at as Date).toISOString(),
  };
}

/** Connects, creates the schema if missing, and returns both stores. */
export async function openPostgresEventStores(options: PostgresOptions): Promise<PostgresEventStores> {
  const pg = await loadOptionalPackage<typeof import('pg') & { default?: typeof import('pg') }>('--postgres', 'pg', options.importer);
  const { Pool: PoolClass } = pg.default ?? pg;
  const pool: Pool = new PoolClass({ connectionString: options.url, application_name: 'flagplane', max: 10 });
  pool.on('error', options.onError ?? (() => undefined));
  try {
    await pool.query(`BEGIN; ${SCHEMA_SQL} COMMIT;`);
  } catch (cause) {
    await pool.end().catch(() => undefined);
    throw new EngineError('postgres', `cannot prepare Postgres at ${redactUrl(options.url)}: ${(cause as Error).message}`, { cause });
  }
  let ended: Promise<void> | undefined;
  const close = () => (ended ??= pool.end());
  const ping = singleFlight(async () => {
    try {
      await pool.query('SELECT 1');
    } catch (cause) {
      throw new EngineError('postgres', `Postgres did not answer: ${(cause as Error).message}`, { cause });
    }
  });

  const identifyQueue: IdentifyQueueStore = {
    engine: 'postgres',
    async append(rows) {
      if (rows.length === 0) return;
      const column = <K extends keyof Omit<IdentifyRow, 'id'>>(name: K) => rows.map((row) => row[name]);
      await pool.query(INSERT_IDENTIFY_SQL, [column('environmentId'), column('userId'), rows.map((row) => JSON.stringify(row.traits)), column('receivedAt')]);
    },
    async list(environmentId, limit) {
      return (await pool.query(LIST_IDENTIFY_SQL, [environmentId, limit ?? null])).rows.map(identifyRow);
    },
    async page(environmentId, limit, before) {
      const { rows } = await pool.query(PAGE_IDENTIFY_SQL, [environmentId, limit, before ?? null]);
      return pageOf(rows, limit, identifyRow);
    },
    async claim(environmentId, limit, leaseMs) {
      const { rows } = await pool.query(CLAIM_IDENTIFY_SQL, [environmentId, limit, leaseMs]);
      return rows
        .map((row): ClaimedRow => ({ ...identifyRow(row), claimedAt: (row.claimed_at as Date).toISOString() }))
        .sort((a, b) => a.id - b.id);
    },
    async ack(environmentId, ids) {
      return (await pool.query(ACK_IDENTIFY_SQL, [environmentId, ids])).rowCount ?? 0;
    },
    ping,
    close,
  };
  const analytics: AnalyticsStore = {
    engine: 'postgres',
    async append(events: readonly StoredEvent[]) {
      if (events.length === 0) return;
      const values = [events.map((e) => e.environmentId), events.map((e) => e.type), events.map((e) => e.receivedAt), events.map((e) => JSON.stringify(e))];
      await pool.query(INSERT_ANALYTICS_SQL, values);
    },
    async list(limit) {
      return (await pool.query(LIST_ANALYTICS_SQL, [limit ?? null])).rows.map((row) => row.event as StoredEvent);
    },
    async page(limit, before) {
      const { rows } = await pool.query(PAGE_ANALYTICS_SQL, [limit, before ?? null]);
      return pageOf(rows, limit, (row) => row.event as StoredEvent);
    },
    ping,
    close,
  };
  return { identifyQueue, analytics, close };
}
