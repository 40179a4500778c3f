import type { DiagnosticEvent } from './diagnostic-events';
import type { EvaluationDetails } from '../evaluation/evaluation-types';
import { isId } from '../shared/guards';

/** (key, value, user) combinations remembered per flush window; past it, memory starts over. */
const MAX_COMBINATIONS = 10_000;

/** Who a read's details were last reported for, and in which flush window (the read tracker's to fill). */
export interface ServedMark {
  servedTo?: string;
  window?: number;
}

/**
 * Turns reads into `evaluation` and `unregistered_flag` events, each (key, value, user)
 * once per flush window. Fast path: a flag whose outcome did not change keeps its details
 * object and the mark beside it, so a read already reported to this user in this window
 * costs two comparisons, not a JSON key.
 */
export function createReadTracker(push: (event: DiagnosticEvent) => void) {
  /** Counts flush windows: a mark from an earlier one no longer counts. */
  let window = 0;
  const combinations = new Set<string>();
  const unknownKeys = new Set<string>();
  /** Adds `id` to `seen`; whether it was new there. */
  const isNew = (seen: Set<string>, id: string) => seen.size < seen.add(id).size;

  /** What `track` does with a read not yet reported to this user in this window. */
  function reportRead(details: EvaluationDetails, userId: string, mark?: ServedMark): void {
    if (mark) {
      mark.servedTo = userId;
      mark.window = window;
    }
    const { key, reason, value, version, errorCode } = details;
    // An unknown key's details are new at every read: remembering them would only grow the set of combinations.
    if (errorCode === 'FLAG_NOT_FOUND') {
      if (isId(key) && isNew(unknownKeys, key)) push({ type: 'unregistered_flag', key });
      return;
    }
    // Only what the events route takes: one event it refuses would cost its whole batch.
    if (!isId(key) || version === null) return;
    // Bounded even when nothing flushes (flushInterval 0): at worst a combination is reported twice.
    if (combinations.size >= MAX_COMBINATIONS) combinations.clear();
    if (isNew(combinations, JSON.stringify([key, userId, value]))) {
      push({ type: 'evaluation', key, reason, value: value ?? null, userId: isId(userId) ? userId : undefined });
    }
  }

  return {
    /** A new flush window: combinations may be reported again. */
    nextWindow(): void {
      window++;
      combinations.clear();
    },
    /**
     * Reports a read served to `userId` (the context's, else the anonymous id): an
     * `evaluation` event the first time a (key, value, user) is served in a flush window,
     * an `unregistered_flag` event the first time an unknown key is read. Reads without a
     * snapshot version (before any snapshot, local overrides) are not reported: they say
     * nothing about the flags. Throws for a value JSON cannot hold. `mark`, which the reader
     * keeps beside `details` (and only beside them), notes who they were reported for.
     */
    track(details: EvaluationDetails, userId: string, mark?: ServedMark): void {
      if (!(mark && mark.servedTo === userId && mark.window === window)) reportRead(details, userId, mark);
    },
  };
}
