import type { DiagnosticEvent } from './diagnostic-events';

/** Events per request: the reference server accepts 500 (protocol.md §9). */
export const MAX_BATCH_EVENTS = 500;
/** Body bytes per request: under the 64 KiB that `fetch(…, { keepalive: true })` allows in flight. */
export const MAX_BATCH_BYTES = 60_000;

/** A JSON batch of seed §2.3 with its events, for putting back if sending fails. */
export interface Batch {
  events: DiagnosticEvent[];
  body: string;
}

const encode = (events: DiagnosticEvent[], sentAt: string) => JSON.stringify({ sentAt, events });

/**
 * Splits events, in order, into batches of at most {@link MAX_BATCH_EVENTS} events and
 * {@link MAX_BATCH_BYTES} bytes (UTF-8). An event too large for any batch goes alone.
 */
export function splitIntoBatches(events: DiagnosticEvent[], sentAt: string): Batch[] {
  const batches: Batch[] = [];
  let current: DiagnosticEvent[] = [];
  let size = encode([], sentAt).length;
  for (const event of events) {
    const eventSize = utf8Length(JSON.stringify(event)) + 1;
    if (current.length > 0 && (current.length >= MAX_BATCH_EVENTS || size + eventSize > MAX_BATCH_BYTES)) {
      batches.push({ events: current, body: encode(current, sentAt) });
      current = [];
      size = encode([], sentAt).length;
    }
    current.push(event);
    size += eventSize;
  }
  if (current.length > 0) batches.push({ events: current, body: encode(current, sentAt) });
  return batches;
}

function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) bytes += code > 0x7ff && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
