import type { Pool, QueryResultRow } from 'pg';
import type { ClaimedRow, IdentifyRow, StoredEvent, StoredTraits } from './records';
import type { AnalyticsStore, IdentifyQueueStore } from './contracts';
import { EngineError, redactUrl } from './engine-error';
import type { ModuleImporter } from './optional-package';
import { loadOptionalPackage } from './optional-package';
import type { LogPage } from './bounded-log';
import { singleFlight } from './single-flight';
import { startPruneLoop, type PruneLoop, type PruneTimers } from './prune-loop';
import { pruneTable, RETAINED_TABLES, type TableRetention } from './postgres-retention';
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
  /** Errors of idle pooled connections, and of prunes (retried at the next run). @default ignore */
  onError?: (error: unknown) => void;
  importer?: ModuleImporter;
  /** What the tables keep, pruned in the background (docs/reference-server.md, "Retention"). @default everything */
  retention?: PostgresRetention;
}

/** The limits of both tables, and how the background prune runs. */
export interface PostgresRetention {
  /** Analytics events, per environment and event type. */
  readonly events: TableRetention;
  /** Identify rows per environment, claimed or not. */
  readonly identifyRows: TableRetention;
  /** Called after each batch a prune deleted, with its row count. */
  readonly onPruned?: (what: keyof typeof RETAINED_TABLES, rows: number) => void;
  /** Time from the end of one prune to the next; appends of a batch's worth of rows start one sooner. @default 60000 */
  readonly everyMs?: number;
  /** Rows one DELETE removes at most. @default 1000 */
  readonly batchRows?: number;
  /** @default Date.now */
  readonly now?: () => number;
  readonly timers?: PruneTimers;
}

const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Prunes both tables now and then; `appended` starts a prune once a batch's worth of rows came in. */
function startPruning(pool: Pool, retention: PostgresRetention, onError: (error: unknown) => void) {
  const batchRows = retention.batchRows ?? 1000;
  const now = retention.now ?? Date.now;
  const loop: PruneLoop = startPruneLoop({
    everyMs: retention.everyMs ?? 60_000,
    onError,
    ...(retention.timers && { timers: retention.timers }),
    async prune(stop) {
      const run = { pool, now, batchRows, stop, breathe };
      for (const what of ['events', 'identifyRows'] as const) {
        await pruneTable(run, RETAINED_TABLES[what], retention[what], (rows) => retention.onPruned?.(what, rows));
      }
    },
  });
  let appended = 0;
  return {
    appended(rows: number) {
      appended += rows;
      if (appended < batchRows) return;
      appended = 0;
      loop.request();
    },
    close: () => loop.close(),
  };
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
  const onError = options.onError ?? (() => undefined);
  pool.on('error', onError);
  try {
    await pool.query(`BEGIN; ${SCHEMA_SQL} COMMIT;`);
  } catch (cause) {
    await pool.end().catch(() => undefined);
    throw new EngineError('postgres', `cannot prepare Postgres at ${redactUrl(options.url)}: ${(cause as Error).message}`, { cause });
  }
  const pruning = options.retention ? startPruning(pool, options.retention, onError) : undefined;
  let ended: Promise<void> | undefined;
  const close = () => (ended ??= (async () => {
    await pruning?.close();
    await pool.end();
  })());
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
      pruning?.appended(rows.length);
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
      pruning?.appended(events.length);
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
