import { createBoundedLog, receivedBefore, type LogPage, type MaxAge } from './bounded-log';
import type { IdentifyRow } from './records';

/** The identify rows kept in memory: what the identify queue holds on the memory engine. */
export interface IdentifyLog {
  /** Every row kept, oldest first. */
  readonly rows: readonly IdentifyRow[];
  append(row: Omit<IdentifyRow, 'id'>): IdentifyRow;
  forEnvironment(environmentId: string): IdentifyRow[];
  /** The newest `limit` rows of the environment older than row `before` (all without it), oldest first. */
  page(environmentId: string, limit: number, before?: number): LogPage<IdentifyRow>;
  /** Removes the rows with these ids (a consumer acknowledged them); returns how many it removed. */
  remove(ids: ReadonlySet<number>): number;
}

/**
 * `rowsKept`: rows kept per environment; a full one drops its oldest row. With `maxAge`, rows
 * received longer ago are dropped too, claimed or not. Each one dropped is counted by `onEvict`.
 */
export function createIdentifyLog(rowsKept = Infinity, onEvict = () => {}, maxAge?: MaxAge): IdentifyLog {
  const log = createBoundedLog<IdentifyRow>(rowsKept, onEvict, receivedBefore(maxAge));
  let next = 1;
  return {
    get rows() {
      return log.all();
    },
    append(row) {
      // The row's id is its sequence number in the log: the cursor of its pages.
      const stored: IdentifyRow = { id: next, ...row };
      next = log.append(row.environmentId, stored) + 1;
      return stored;
    },
    forEnvironment: (environmentId) => log.all((bucket) => bucket === environmentId),
    page: (environmentId, limit, before) => log.page(limit, before, (bucket) => bucket === environmentId),
    remove: (ids) => log.removeWhere((row) => ids.has(row.id)),
  };
}
