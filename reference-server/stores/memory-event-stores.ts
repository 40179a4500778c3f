import type { EventLog } from './event-log';
import type { IdentifyLog } from './identify-log';
import type { ClaimedRow, IdentifyRow } from './records';
import type { AnalyticsStore, IdentifyQueueStore } from './contracts';

/** The newest `limit` entries, oldest first (all without a limit). */
export function newest<T>(entries: readonly T[], limit?: number): T[] {
  if (limit === undefined) return [...entries];
  return limit === 0 ? [] : entries.slice(-limit);
}

/** The identify queue in memory: the server's own `stores.identifyQueue`, plus claims. */
export function createMemoryIdentifyQueueStore(queue: IdentifyLog, now: () => number = Date.now): IdentifyQueueStore {
  /** Row id → when its claim lapses. */
  const claims = new Map<number, number>();
  return {
    engine: 'memory',
    append(rows) {
      for (const row of rows) queue.append(row);
      return Promise.resolve();
    },
    list: (environmentId, limit) => Promise.resolve(newest(queue.forEnvironment(environmentId), limit)),
    page: (environmentId, limit, before) => Promise.resolve(queue.page(environmentId, limit, before)),
    claim(environmentId, limit, leaseMs) {
      const at = now();
      const free = (row: IdentifyRow) => (claims.get(row.id) ?? 0) <= at;
      const claimed: ClaimedRow[] = queue
        .forEnvironment(environmentId)
        .filter(free)
        .slice(0, limit)
        .map((row) => ({ ...row, claimedAt: new Date(at).toISOString() }));
      for (const row of claimed) claims.set(row.id, at + leaseMs);
      return Promise.resolve(claimed);
    },
    ack(environmentId, ids) {
      const wanted = new Set(ids);
      const own = new Set(queue.forEnvironment(environmentId).map((row) => row.id).filter((id) => wanted.has(id)));
      for (const id of own) claims.delete(id);
      return Promise.resolve(queue.remove(own));
    },
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/** Production evaluation events in memory: the server's own `stores.analytics`. */
export function createMemoryAnalyticsStore(log: EventLog): AnalyticsStore {
  return {
    engine: 'memory',
    append(events) {
      for (const event of events) log.append(event);
      return Promise.resolve();
    },
    list: (limit) => Promise.resolve(newest(log.events, limit)),
    page: (limit, before) => Promise.resolve(log.page(limit, before)),
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
