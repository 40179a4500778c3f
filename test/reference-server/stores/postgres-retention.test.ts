// Retention on Postgres: analytics events and identify rows pruned by age and by count, in
// batches, in the background, counted, and stopped on close.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { openPostgresEventStores, type PostgresEventStores, type PostgresRetention } from '../../../reference-server/stores/postgres-event-stores';
import { SCHEMA_SQL } from '../../../reference-server/stores/postgres-schema';
import { pruneStatements, RETAINED_TABLES } from '../../../reference-server/stores/postgres-retention';
import type { PruneTimers } from '../../../reference-server/stores/prune-loop';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { waitFor } from '../../helpers/wait-for';
import { postgresNeed, usePostgresProcess } from './engines-fixture';

const HOUR = 3_600_000;
const NOW = Date.UTC(2030, 5, 1);

/** Timers the test fires by hand; `scheduled` counts the prunes that ended (each schedules the next). */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let ids = 0;
  const timers: PruneTimers = {
    setTimeout(callback) {
      ids += 1;
      pending.set(ids, callback);
      return ids;
    },
    clearTimeout: (id) => void pending.delete(id as number),
  };
  return {
    timers,
    get scheduled() {
      return ids;
    },
    get pending() {
      return pending.size;
    },
    /** Runs the next prune now. */
    fire() {
      const [id, callback] = [...pending][0] ?? [];
      if (id === undefined || !callback) throw new Error('no prune is scheduled');
      pending.delete(id);
      callback();
    },
  };
}

/** Tallies onPruned per table, and each batch's size. */
function tally() {
  const counted = { events: 0, identifyRows: 0, batches: [] as number[] };
  return { counted, onPruned: (what: 'events' | 'identifyRows', rows: number) => void ((counted[what] += rows), counted.batches.push(rows)) };
}

describeWithBinaries('Postgres retention', [postgresNeed], () => {
  const postgres = usePostgresProcess();
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A fresh database with the schema, and a client of its own to insert and inspect rows. */
  async function database() {
    const url = await postgres.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(`BEGIN; ${SCHEMA_SQL} COMMIT;`);
    const insertEvents = (environmentId: string, type: string, count: number, receivedAt: number) =>
      client.query(
        `INSERT INTO flagplane_analytics_events (environment_id, type, received_at, event)
         SELECT $1, $2, $3::timestamptz, jsonb_build_object('n', g) FROM generate_series(1, $4::int) g`,
        [environmentId, type, new Date(receivedAt), count],
      );
    const insertIdentify = (environmentId: string, count: number, receivedAt: number) =>
      client.query(
        `INSERT INTO flagplane_identify_queue (environment_id, user_id, traits, received_at)
         SELECT $1, 'u-' || g, '{}'::jsonb, $2::timestamptz FROM generate_series(1, $3::int) g`,
        [environmentId, new Date(receivedAt), count],
      );
    const countOf = async (sql: string) => Number((await client.query(`SELECT count(*) AS n FROM ${sql}`)).rows[0].n);
    return { url, client, insertEvents, insertIdentify, countOf };
  }

  async function open(url: string, retention: PostgresRetention, onError: (error: unknown) => void = () => undefined): Promise<PostgresEventStores> {
    const stores = await openPostgresEventStores({ url, retention, onError });
    cleanups.push(stores.close);
    return stores;
  }

  it('prunes rows past the age, then each group past its count (events per environment and type, identify rows per environment), in batches, counting each', async () => {
    const db = await database();
    const timers = manualTimers();
    const { counted, onPruned } = tally();
    const retention = { events: { kept: 5, maxAgeMs: HOUR }, identifyRows: { kept: 3, maxAgeMs: HOUR }, now: () => NOW, batchRows: 2, timers: timers.timers, onPruned };
    await open(db.url, retention);
    await waitFor(() => timers.scheduled === 1, 5000, 'the prune at start');
    expect(counted.events + counted.identifyRows).toBe(0);

    await db.insertEvents('production', 'evaluation', 3, NOW - 2 * HOUR);
    await db.insertEvents('production', 'evaluation', 8, NOW - 1000);
    await db.insertEvents('production', 'error', 6, NOW - 1000);
    await db.insertEvents('staging', 'evaluation', 2, NOW - 1000);
    await db.insertIdentify('production', 2, NOW - HOUR - 1);
    await db.insertIdentify('production', 4, NOW - 1000);
    await db.insertIdentify('staging', 3, NOW - 1000);
    await db.client.query(`UPDATE flagplane_identify_queue SET claimed_at = now(), lease_until = now() + interval '1 day' WHERE id = (SELECT min(id) FROM flagplane_identify_queue)`);
    const newest = async (where: string, limit: number) =>
      (await db.client.query(`SELECT id FROM ${where} ORDER BY id DESC LIMIT ${limit}`)).rows.map((row) => Number(row.id));
    const keptEvaluations = await newest(`flagplane_analytics_events WHERE environment_id = 'production' AND type = 'evaluation'`, 5);
    const keptRows = await newest(`flagplane_identify_queue WHERE environment_id = 'production'`, 3);

    timers.fire();
    await waitFor(() => timers.scheduled === 2, 5000, 'the prune');
    // 3 past the age, 3 production evaluations and 1 production error past the count of 5.
    expect(counted.events).toBe(7);
    // 2 past the age (one of them claimed), 1 production row past the count of 3.
    expect(counted.identifyRows).toBe(3);
    expect(Math.max(...counted.batches)).toBeLessThanOrEqual(2);
    expect(await newest(`flagplane_analytics_events WHERE environment_id = 'production' AND type = 'evaluation'`, 100)).toEqual(keptEvaluations);
    expect(await db.countOf(`flagplane_analytics_events WHERE type = 'error'`)).toBe(5);
    expect(await db.countOf(`flagplane_analytics_events WHERE environment_id = 'staging'`)).toBe(2);
    expect(await newest(`flagplane_identify_queue WHERE environment_id = 'production'`, 100)).toEqual(keptRows);
    expect(await db.countOf(`flagplane_identify_queue WHERE environment_id = 'staging'`)).toBe(3);
  });

  it('answers appends and reads while it prunes 50,000 rows, which it deletes in batches of 1,000', async () => {
    const db = await database();
    await db.insertEvents('production', 'evaluation', 50_000, NOW - 2 * HOUR);
    const { counted, onPruned } = tally();
    const order: string[] = [];
    const stores = await open(db.url, { events: { kept: 10_000, maxAgeMs: HOUR }, identifyRows: { kept: 10_000, maxAgeMs: HOUR }, now: () => NOW, onPruned: (what, rows) => {
      onPruned(what, rows);
      order.push(`pruned ${counted.events}`);
    } });
    await waitFor(() => counted.events >= 1000, 10_000, 'the first batch');
    // At once, as requests arrive: each takes a connection of the pool the prune holds one of.
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => {
        await stores.analytics.append([{ type: 'evaluation', environmentId: 'production', receivedAt: new Date(NOW + i).toISOString(), n: `fresh-${i}` }]);
        order.push(`appended ${i} at ${counted.events}`);
      }),
    );
    expect((await stores.analytics.list(5)).map((event) => String(event.n)).sort()).toEqual(['fresh-0', 'fresh-1', 'fresh-2', 'fresh-3', 'fresh-4']);
    order.push(`read at ${counted.events}`);
    const answeredAt = counted.events;
    await waitFor(() => counted.events === 50_000, 60_000, 'every old row pruned');
    // Every request was answered while the prune still had batches to go.
    expect(answeredAt).toBeLessThan(50_000);
    expect(order.indexOf(`read at ${answeredAt}`)).toBeLessThan(order.indexOf('pruned 50000'));
    expect(new Set(counted.batches)).toEqual(new Set([1000]));
    expect(await db.countOf('flagplane_analytics_events')).toBe(5);
  });

  it('reports an engine failure during a prune to onError, keeps running and prunes at the next run', async () => {
    const db = await database();
    const timers = manualTimers();
    const errors: unknown[] = [];
    const { counted, onPruned } = tally();
    const stores = await open(db.url, { events: { kept: 10, maxAgeMs: HOUR }, identifyRows: { kept: 10, maxAgeMs: HOUR }, now: () => NOW, timers: timers.timers, onPruned }, (error) => errors.push(error));
    await waitFor(() => timers.scheduled === 1, 5000, 'the prune at start');
    await db.client.query('ALTER TABLE flagplane_analytics_events RENAME TO flagplane_analytics_away');
    timers.fire();
    await waitFor(() => timers.scheduled === 2, 5000, 'the failed prune');
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/flagplane_analytics_events/);
    expect(timers.pending).toBe(1);

    await db.client.query('ALTER TABLE flagplane_analytics_away RENAME TO flagplane_analytics_events');
    await db.insertEvents('production', 'evaluation', 4, NOW - 2 * HOUR);
    timers.fire();
    await waitFor(() => timers.scheduled === 3, 5000, 'the retried prune');
    expect(counted.events).toBe(4);
    expect(errors).toHaveLength(1);
    expect(await stores.analytics.list()).toEqual([]);
  });

  it('starts a prune once a batch of rows was appended, without waiting for its timer', async () => {
    const db = await database();
    const timers = manualTimers();
    const { counted, onPruned } = tally();
    const stores = await open(db.url, { events: { kept: 3, maxAgeMs: HOUR }, identifyRows: { kept: 3, maxAgeMs: HOUR }, now: () => NOW, batchRows: 4, timers: timers.timers, onPruned });
    await waitFor(() => timers.scheduled === 1, 5000, 'the prune at start');
    const event = (n: number) => ({ type: 'evaluation', environmentId: 'production', receivedAt: new Date(NOW).toISOString(), n });
    await stores.analytics.append([event(1), event(2), event(3)]);
    await stores.identifyQueue.append([{ environmentId: 'production', userId: 'u', traits: {}, receivedAt: new Date(NOW).toISOString() }]);
    await waitFor(() => timers.scheduled === 2, 5000, 'a prune after four rows');
    expect(counted.events).toBe(0);
    await stores.analytics.append([event(4), event(5), event(6), event(7)]);
    await waitFor(() => timers.scheduled === 3, 5000, 'a prune after four more');
    expect(counted.events).toBe(4);
    expect((await stores.analytics.list()).map((e) => e.n)).toEqual([5, 6, 7]);
  });

  it('finds what each prune statement deletes through an index, never by scanning the table', async () => {
    const db = await database();
    for (let environment = 0; environment < 4; environment++) {
      await db.insertEvents(`env-${environment}`, 'evaluation', 25_000, NOW - environment * HOUR);
      await db.insertIdentify(`env-${environment}`, 25_000, NOW - environment * HOUR);
    }
    await db.client.query('ANALYZE');
    const planOf = async (sql: string, values: unknown[]) =>
      (await db.client.query(`EXPLAIN ${sql}`, values)).rows.map((row) => row['QUERY PLAN'] as string).join('\n');
    for (const table of Object.values(RETAINED_TABLES)) {
      const statements = pruneStatements(table);
      const group = table.groupBy.map((column) => (column === 'type' ? 'evaluation' : 'env-1'));
      const plans = [
        await planOf(statements.expired, [new Date(NOW - 2 * HOUR), 1000]),
        await planOf(statements.groups, []),
        await planOf(statements.boundary, [...group, 1000]),
        await planOf(statements.overCount, [...group, 1_000_000, 1000]),
      ];
      for (const plan of plans) {
        expect(plan).toMatch(/Index/);
        expect(plan).not.toMatch(/Seq Scan/);
      }
    }
  });

  it('stops its timer on close and ends the pool', async () => {
    const db = await database();
    // Real timers, watched: which of the loop's timers are still set.
    const live = new Set<ReturnType<typeof setTimeout>>();
    const timers: PruneTimers = {
      setTimeout(callback, ms) {
        const id = setTimeout(() => {
          live.delete(id);
          callback();
        }, ms);
        live.add(id);
        return id;
      },
      clearTimeout(id) {
        live.delete(id as ReturnType<typeof setTimeout>);
        clearTimeout(id as ReturnType<typeof setTimeout>);
      },
    };
    const stores = await openPostgresEventStores({ url: db.url, retention: { events: { kept: 10, maxAgeMs: HOUR }, identifyRows: { kept: 10, maxAgeMs: HOUR }, timers } });
    await waitFor(() => live.size === 1, 5000, 'the timer of the next prune');
    await stores.close();
    expect(live.size).toBe(0);
    // The pool has ended (its idle timers with it): a query is refused. A count of the process's
    // timers is no proof here: test files in other workers of the same process start and stop theirs.
    await expect(stores.analytics.list()).rejects.toThrow(/pool/i);
  });

  it('stops a prune in flight on close: close waits for the statement in hand, not for the remaining rows', async () => {
    const db = await database();
    await db.insertEvents('production', 'evaluation', 30_000, NOW - 2 * HOUR);
    const { counted, onPruned } = tally();
    const stores = await openPostgresEventStores({ url: db.url, retention: { events: { kept: 100_000, maxAgeMs: HOUR }, identifyRows: { kept: 10, maxAgeMs: HOUR }, now: () => NOW, onPruned } });
    await waitFor(() => counted.events >= 1000, 10_000, 'the first batch');
    await stores.close();
    const left = await db.countOf('flagplane_analytics_events');
    expect(left).toBeGreaterThan(0);
    expect(left).toBe(30_000 - counted.events);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await db.countOf('flagplane_analytics_events')).toBe(left);
  });
});
