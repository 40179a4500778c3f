import type { Pool } from 'pg';

/** What one table keeps: rows per group at most, each for at most `maxAgeMs` after it was received. */
export interface TableRetention {
  readonly kept: number;
  readonly maxAgeMs: number;
}

/** A table retention prunes, and the columns whose values make one group of the count limit. */
export interface RetainedTable {
  readonly name: string;
  readonly groupBy: readonly string[];
}

export const RETAINED_TABLES = {
  /** Kept per environment and event type, as the memory log keeps them. */
  events: { name: 'flagplane_analytics_events', groupBy: ['environment_id', 'type'] },
  /** Kept per environment. */
  identifyRows: { name: 'flagplane_identify_queue', groupBy: ['environment_id'] },
} as const satisfies Record<string, RetainedTable>;

/** The statements of one table's prune; each DELETE takes its batch size as its last parameter. */
export interface PruneStatements {
  /** $1: the cutoff time. Deletes up to a batch of rows received before it. */
  readonly expired: string;
  /** Every group holding rows, by a loose scan of the group index (one probe per group). */
  readonly groups: string;
  /** The group's values, then how many rows it keeps: the id of its newest row past the count, if any. */
  readonly boundary: string;
  /** The group's values, then the boundary id: deletes up to a batch of the group's rows up to it. */
  readonly overCount: string;
}

export function pruneStatements({ name, groupBy }: RetainedTable): PruneStatements {
  const columns = groupBy.join(', ');
  const n = groupBy.length;
  const inGroup = groupBy.map((column, i) => `${column} = $${i + 1}`).join(' AND ');
  const prefixed = (alias: string) => groupBy.map((column) => `${alias}.${column}`).join(', ');
  return {
    // `= ANY(ARRAY(…))` deletes by primary key: with `IN (…)` the planner may scan the whole table per batch.
    expired: `DELETE FROM ${name} WHERE id = ANY(ARRAY(SELECT id FROM ${name} WHERE received_at < $1 ORDER BY received_at LIMIT $2))`,
    groups: `
WITH RECURSIVE groups AS (
  (SELECT ${columns} FROM ${name} ORDER BY ${columns} LIMIT 1)
  UNION ALL
  SELECT ${prefixed('next')} FROM groups CROSS JOIN LATERAL (
    SELECT ${prefixed('t')} FROM ${name} t WHERE (${prefixed('t')}) > (${prefixed('groups')}) ORDER BY ${prefixed('t')} LIMIT 1
  ) next
)
SELECT ${columns} FROM groups`,
    boundary: `SELECT id FROM ${name} WHERE ${inGroup} ORDER BY id DESC OFFSET $${n + 1} LIMIT 1`,
    overCount: `DELETE FROM ${name} WHERE id = ANY(ARRAY(SELECT id FROM ${name} WHERE ${inGroup} AND id <= $${n + 1} ORDER BY id LIMIT $${n + 2}))`,
  };
}

/** How one prune runs: its pool, clock, batch size, where it counts, and when it must stop. */
export interface PruneRun {
  readonly pool: Pool;
  readonly now: () => number;
  readonly batchRows: number;
  readonly stop: AbortSignal;
  /** Lets requests waiting for the pool or the event loop go first between two batches. */
  readonly breathe: () => Promise<void>;
}

/** Runs `sql` (its last parameter the batch size) until it deletes less than a batch; `counted` hears each batch. */
async function deleteInBatches(run: PruneRun, sql: string, values: unknown[], counted: (rows: number) => void): Promise<void> {
  while (!run.stop.aborted) {
    const deleted = (await run.pool.query(sql, [...values, run.batchRows])).rowCount ?? 0;
    if (deleted > 0) counted(deleted);
    if (deleted < run.batchRows) return;
    await run.breathe();
  }
}

/** Deletes the table's rows past the age, then each group's oldest rows past the count. */
export async function pruneTable(run: PruneRun, table: RetainedTable, retention: TableRetention, counted: (rows: number) => void): Promise<void> {
  const statements = pruneStatements(table);
  await deleteInBatches(run, statements.expired, [new Date(run.now() - retention.maxAgeMs)], counted);
  const { rows: groups } = await run.pool.query(statements.groups);
  for (const group of groups) {
    if (run.stop.aborted) return;
    const values = table.groupBy.map((column) => group[column] as unknown);
    const { rows } = await run.pool.query(statements.boundary, [...values, retention.kept]);
    if (rows[0]) await deleteInBatches(run, statements.overCount, [...values, rows[0].id], counted);
  }
}
