// One contract for the identify queue and one for the analytics store, run against memory and Postgres.
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { AnalyticsStore, IdentifyQueueStore } from '../../../reference-server/stores/contracts';
import { createMemoryAnalyticsStore, createMemoryIdentifyQueueStore } from '../../../reference-server/stores/memory-event-stores';
import { openPostgresEventStores } from '../../../reference-server/stores/postgres-event-stores';
import { CLAIM_IDENTIFY_SQL } from '../../../reference-server/stores/postgres-schema';
import type { StoredEvent } from '../../../reference-server/stores/records';
import { createEventLog } from '../../../reference-server/stores/event-log';
import { createIdentifyLog } from '../../../reference-server/stores/identify-log';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { postgresNeed, usePostgresProcess } from './engines-fixture';

interface EventEngine {
  open(): Promise<{ queue: IdentifyQueueStore; analytics: AnalyticsStore; close(): Promise<void> }>;
}

const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, second, 123)).toISOString();
const row = (environmentId: string, n: number) => ({ environmentId, userId: `u-${n}`, traits: { n, tags: ['a'], nested: { ok: true } }, receivedAt: at(n) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function eventContract(engine: () => EventEngine): void {
  const opened: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((close) => close()));
  });
  const open = async () => {
    const stores = await engine().open();
    opened.push(stores.close);
    return stores;
  };

  it('queues rows with growing ids per environment and lists the newest, oldest first', async () => {
    const { queue } = await open();
    await queue.append([row('production', 1), row('staging', 2), row('production', 3)]);
    await queue.append([row('production', 4)]);
    await queue.append([]);
    const all = await queue.list('production');
    expect(all.map(({ id: _id, ...rest }) => rest)).toEqual([row('production', 1), row('production', 3), row('production', 4)]);
    expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => a - b));
    expect((await queue.list('production', 2)).map((r) => r.userId)).toEqual(['u-3', 'u-4']);
    expect(await queue.list('production', 0)).toEqual([]);
    expect((await queue.list('staging')).map((r) => r.userId)).toEqual(['u-2']);
  });

  it('hands each row to one claimer, even when claims run at once, oldest first', async () => {
    const { queue } = await open();
    await queue.append(Array.from({ length: 10 }, (_, i) => row('production', i)));
    await queue.append([row('staging', 99)]);
    const first = await queue.claim('production', 3, 60_000);
    expect(first.map((r) => r.userId)).toEqual(['u-0', 'u-1', 'u-2']);
    expect(Date.parse(first[0]?.claimedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const together = await Promise.all(Array.from({ length: 4 }, () => queue.claim('production', 3, 60_000)));
    const ids = together.flat().map((r) => r.userId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(['u-3', 'u-4', 'u-5', 'u-6', 'u-7', 'u-8', 'u-9'].sort());
    expect(await queue.claim('production', 3, 60_000)).toEqual([]);
    expect((await queue.claim('staging', 3, 60_000)).map((r) => r.userId)).toEqual(['u-99']);
  });

  it('lets a claim lapse after its lease, so another consumer takes the rows', async () => {
    const { queue } = await open();
    await queue.append([row('production', 1), row('production', 2)]);
    expect(await queue.claim('production', 10, 150)).toHaveLength(2);
    expect(await queue.claim('production', 10, 150)).toEqual([]);
    await sleep(300);
    expect((await queue.claim('production', 10, 60_000)).map((r) => r.userId)).toEqual(['u-1', 'u-2']);
  });

  it('deletes acknowledged rows of the environment only', async () => {
    const { queue } = await open();
    await queue.append([row('production', 1), row('production', 2), row('staging', 3)]);
    const claimed = await queue.claim('production', 1, 60_000);
    const staging = await queue.list('staging');
    expect(await queue.ack('production', [...claimed.map((r) => r.id), ...staging.map((r) => r.id)])).toBe(1);
    expect((await queue.list('production')).map((r) => r.userId)).toEqual(['u-2']);
    expect(await queue.list('staging')).toHaveLength(1);
    expect(await queue.ack('production', claimed.map((r) => r.id))).toBe(0);
    expect(await queue.ack('production', [])).toBe(0);
  });

  it('keeps analytics events as received and lists the newest, oldest first', async () => {
    const { analytics } = await open();
    const event = (n: number): StoredEvent => ({ type: 'evaluation', environmentId: 'production', receivedAt: at(n), flagKey: `f-${n}`, value: { n, x: [1.5, 'é'] }, ts: at(n) });
    await analytics.append([event(1), event(2)]);
    await analytics.append([event(3)]);
    await analytics.append([]);
    expect(await analytics.list()).toEqual([event(1), event(2), event(3)]);
    expect(await analytics.list(2)).toEqual([event(2), event(3)]);
    expect(await analytics.list(0)).toEqual([]);
  });
}

describe('event store contracts: memory', () => {
  eventContract(() => ({
    open: async () => ({
      queue: createMemoryIdentifyQueueStore(createIdentifyLog()),
      analytics: createMemoryAnalyticsStore(createEventLog()),
      close: async () => undefined,
    }),
  }));
});

describeWithBinaries('event store contracts: Postgres', [postgresNeed], () => {
  const postgres = usePostgresProcess();
  eventContract(() => ({
    open: async () => {
      const stores = await openPostgresEventStores({ url: await postgres.createDatabase() });
      return { queue: stores.identifyQueue, analytics: stores.analytics, close: stores.close };
    },
  }));

  it('skips rows another consumer is claiming in an open transaction, without waiting for it', async () => {
    const url = await postgres.createDatabase();
    const stores = await openPostgresEventStores({ url });
    const consumer = new pg.Client({ connectionString: url });
    await consumer.connect();
    try {
      await stores.identifyQueue.append([row('production', 1), row('production', 2), row('production', 3)]);
      await consumer.query('BEGIN');
      expect((await consumer.query(CLAIM_IDENTIFY_SQL, ['production', 2, 60_000])).rows).toHaveLength(2);
      let waited: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<'waited'>((resolve) => (waited = setTimeout(() => resolve('waited'), 2000)));
      const other = await Promise.race([stores.identifyQueue.claim('production', 10, 60_000), timeout]);
      clearTimeout(waited);
      expect(other).not.toBe('waited');
      expect((other as Array<{ userId: string }>).map((r) => r.userId)).toEqual(['u-3']);
      await consumer.query('ROLLBACK');
    } finally {
      await consumer.end();
      await stores.close();
    }
  });

  it('creates its schema once, also when two instances start at the same time', async () => {
    const url = await postgres.createDatabase();
    const [a, b] = await Promise.all([openPostgresEventStores({ url }), openPostgresEventStores({ url })]);
    await a.identifyQueue.append([row('production', 1)]);
    expect(await b.identifyQueue.list('production')).toHaveLength(1);
    await Promise.all([a.close(), b.close()]);
    const again = await openPostgresEventStores({ url });
    expect(await again.identifyQueue.list('production')).toHaveLength(1);
    await again.close();
  });
});
