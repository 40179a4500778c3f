import { createBoundedLog, receivedBefore, type LogPage, type MaxAge } from './bounded-log';
import type { StoredEvent } from './records';

/** Events kept in memory: the diagnostics, and the analytics store on the memory engine. */
export interface EventLog {
  /** Every event kept, oldest first. */
  readonly events: readonly StoredEvent[];
  append(event: StoredEvent): void;
  /** The newest `limit` events older than the cursor `before` (all without it), oldest first. */
  page(limit: number, before?: number): LogPage<StoredEvent>;
}

/**
 * `eventsKept`: events kept per environment and event type; with `maxAge`, events received
 * longer ago are dropped too. Each one dropped is counted by `onEvict`.
 */
export function createEventLog(eventsKept = Infinity, onEvict = () => {}, maxAge?: MaxAge): EventLog {
  const log = createBoundedLog<StoredEvent>(eventsKept, onEvict, receivedBefore(maxAge));
  return {
    get events() {
      return log.all();
    },
    append(event) {
      log.append(`${event.environmentId}\n${event.type}`, event);
    },
    page: (limit, before) => log.page(limit, before),
  };
}
