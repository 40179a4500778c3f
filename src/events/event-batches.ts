/** Events per request: the reference server accepts 500 (protocol.md §9). */
export const MAX_BATCH_EVENTS = 500;
/** Body bytes per request: under the 64 KiB that `fetch(…, { keepalive: true })` allows in flight. */
export const MAX_BATCH_BYTES = 60_000;

/**
 * How many of the leading `events` (each one's JSON) fit one batch `{ sentAt, events }` of
 * at most {@link MAX_BATCH_EVENTS} events and {@link MAX_BATCH_BYTES} bytes (UTF-8). At
 * least one: an event too large for any batch goes alone.
 */
export function batchLength(events: string[]): number {
  // Room for `{"sentAt":"2026-01-01T00:00:00.000Z","events":[]}`.
  let bytes = 50;
  let count = 0;
  for (const event of events.slice(0, MAX_BATCH_EVENTS)) {
    // Its comma, then its UTF-8 bytes: each escape `%XX` is one byte. JSON escapes lone
    // surrogates, so encodeURIComponent cannot throw.
    bytes += 1 + encodeURIComponent(event).replace(/%../g, '.').length;
    if (count && bytes > MAX_BATCH_BYTES) break;
    count++;
  }
  return count;
}
