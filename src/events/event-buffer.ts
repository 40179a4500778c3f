import type { DiagnosticEvent } from './diagnostic-events';
import { batchLength } from './event-batches';

/** Events buffered at most; past it the oldest are dropped, counted and reported. */
export const MAX_BUFFERED_EVENTS = 1000;

/** Buffered events, each `[push number, JSON]`. */
export type BufferedEvents = Array<[number, string]>;

/**
 * The bounded buffer of diagnostic events, each kept as JSON taken when it is pushed (later
 * changes to its objects do not leak in), after its push number: a batch put back goes
 * back in push order, even beside another.
 */
export function createEventBuffer() {
  let buffer: BufferedEvents = [];
  let pushed = 0;
  /** Events dropped because the buffer was full, since `takeDropped` last asked. */
  let dropped = 0;
  // Keeps the newest events; `splice` with a negative count removes nothing.
  const bound = () => (dropped += buffer.splice(0, buffer.length - MAX_BUFFERED_EVENTS).length);
  return {
    size: () => buffer.length,
    /** Buffers `event`; throws, buffering nothing, for one that JSON cannot hold (a `BigInt`, a cycle). */
    add(event: DiagnosticEvent): void {
      buffer.push([pushed++, JSON.stringify(event)]);
      bound();
    },
    /** Takes out the next batch, under the events route's limits. */
    take: (): BufferedEvents => buffer.splice(0, batchLength(buffer.map(([, json]) => json))),
    /** Puts a batch back, in push order, for a retry (the bound never reaches a batch in flight). */
    putBack(taken: BufferedEvents): void {
      buffer = taken.concat(buffer).sort((a, b) => a[0] - b[0]);
      bound();
    },
    /** How many events were dropped since the last call. */
    takeDropped(): number {
      const count = dropped;
      dropped = 0;
      return count;
    },
  };
}

export type EventBuffer = ReturnType<typeof createEventBuffer>;
