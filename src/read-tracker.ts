import type { DiagnosticEvent } from './diagnostic-events';
import type { EvaluationDetails } from './evaluation-types';

/** (key, value, user) combinations remembered per flush window; past it, memory starts over. */
const MAX_COMBINATIONS = 10_000;

/**
 * Turns reads into diagnostic events without flooding: an `evaluation` event the first
 * time a (key, value, user) is served in a flush window, an `unregistered_flag` event the
 * first time an unknown key is read. Reads before any snapshot and local overrides are
 * not reported: they say nothing about the flag configuration.
 */
export class ReadTracker {
  /** Reports a read served to `userId` (the context's, else the anonymous id). */
  readonly track: (details: EvaluationDetails, userId?: string) => void;
  /** Starts a new flush window: combinations may be reported again. */
  readonly newWindow: () => void;

  // The state lives in the constructor's closure: its names minify, property names would not.
  constructor(emit: (event: DiagnosticEvent) => void) {
    // Fast path: a flag whose outcome did not change keeps its details object, so a read
    // already seen for this user in this window costs one lookup, not a JSON key.
    let served = new WeakMap<EvaluationDetails, string | undefined>();
    const combinations = new Set<string>();
    const unknownKeys = new Set<string>();

    this.track = (details, userId) => {
      if (served.has(details) && served.get(details) === userId) return;
      served.set(details, userId);
      const { key, reason, value, errorCode } = details;
      if (errorCode === 'FLAG_NOT_FOUND') {
        if (!unknownKeys.has(key)) emit({ type: 'unregistered_flag', key });
        unknownKeys.add(key);
      } else if (reason !== 'OVERRIDE' && errorCode !== 'PROVIDER_NOT_READY') {
        const combination = JSON.stringify([key, userId, value]);
        if (combinations.has(combination)) return;
        // Bounded even when nothing flushes (flushInterval 0): at worst a combination is reported twice.
        if (combinations.size >= MAX_COMBINATIONS) combinations.clear();
        combinations.add(combination);
        // An undefined userId drops out of the JSON batch.
        emit({ type: 'evaluation', key, reason, value: value ?? null, userId });
      }
    };
    this.newWindow = () => {
      served = new WeakMap();
      combinations.clear();
    };
  }
}
