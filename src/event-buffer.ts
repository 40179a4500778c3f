import type { DiagnosticEvent } from './diagnostic-events';

/** Events kept at most; past it the oldest are dropped and counted. */
export const MAX_BUFFERED_EVENTS = 1000;

/** A bounded FIFO of diagnostic events. */
export class EventBuffer {
  private events: DiagnosticEvent[] = [];
  /** Events dropped because the buffer was full, since the last `takeDropped()`. */
  private dropped = 0;

  constructor(private readonly capacity = MAX_BUFFERED_EVENTS) {}

  push(event: DiagnosticEvent): void {
    this.events.push(event);
    if (this.events.length > this.capacity) {
      this.events.shift();
      this.dropped++;
    }
  }

  /** Puts a batch that failed to send back in front, in order, within capacity. */
  restore(batch: DiagnosticEvent[]): void {
    const merged = batch.concat(this.events);
    const overflow = Math.max(0, merged.length - this.capacity);
    this.dropped += overflow;
    this.events = merged.slice(overflow);
  }

  /** Removes and returns up to `count` of the oldest events. */
  take(count = this.events.length): DiagnosticEvent[] {
    return this.events.splice(0, count);
  }

  takeDropped(): number {
    const dropped = this.dropped;
    this.dropped = 0;
    return dropped;
  }

  get size(): number {
    return this.events.length;
  }
}
