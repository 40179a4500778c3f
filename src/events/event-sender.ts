import { onPageHide } from '../platform/visibility';
import type { FlagplaneError } from '../shared/errors';
import { createBatchSending, EVENTS_ROUTE, type EventSenderOptions } from './batch-sending';
import type { DiagnosticEvent } from './diagnostic-events';
import { createEventBuffer, MAX_BUFFERED_EVENTS } from './event-buffer';
import { createReadTracker } from './read-tracker';

export { EVENTS_ROUTE, MAX_BUFFERED_EVENTS };

export type { EventSenderOptions };

/**
 * The event buffer and its sending side: flushes by size, by timer and when the page goes
 * away, keeps a failed batch in order and retries it with backoff, drops a batch the
 * server rejects as malformed (4xx), and reports every loss through `report` — nothing
 * is lost silently.
 */
export function createEventSender(options: EventSenderOptions) {
  const buffer = createEventBuffer();
  /** `close()`'s last flush: once it started, nothing more is buffered or sent, and no timer armed. */
  let closing: Promise<void> | undefined;
  const reads = createReadTracker(push);
  const sending = createBatchSending(options, buffer, () => closing, reads.nextWindow);
  const { flush } = sending;

  /** Buffers `event`; throws, buffering nothing, for one that JSON cannot hold (a `BigInt`, a cycle). */
  function push(event: DiagnosticEvent): void {
    if (closing) return;
    buffer.add(event);
    sending.added();
  }

  // Both halves may fire for one unload: a second flush finds the buffer empty.
  const stopPageHide = onPageHide(() => flush(true));

  return {
    push,
    track: reads.track,
    /** Buffers the `error` event of an error reported through `onError`, without the SDK key. */
    error(error: FlagplaneError): void {
      push({ type: 'error', message: error.message.replaceAll(options.sdkKey, '[sdk key]').slice(0, 2048) });
    },
    flush,
    /**
     * Flushes once more with keepalive, and resolves when that and any send in flight are
     * done; later events are not buffered, later flushes send nothing, and no timer or page
     * listener is left.
     */
    close(): Promise<void> {
      stopPageHide();
      return (closing ??= flush(true));
    },
  };
}

export type EventSender = ReturnType<typeof createEventSender>;
