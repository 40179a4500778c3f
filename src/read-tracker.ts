import type { DiagnosticEvent } from './diagnostic-events';
import type { EvaluationDetails } from './evaluation-types';

/**
 * Turns reads into diagnostic events without flooding: an `evaluation` event the first
 * time a (key, value, user) is served in a flush window, an `unregistered_flag` event the
 * first time an unknown key is read. Reads before any snapshot and local overrides are
 * not reported: they say nothing about the flag configuration.
 */
const MAX_COMBINATIONS = 10_000;

export class ReadTracker {
  // Fast path: a details object already reported in this window costs one WeakSet lookup.
  private reported = new WeakSet<object>();
  private combinations = new Set<string>();
  private readonly unknownKeys = new Set<string>();
  private userId: string | undefined;

  constructor(private readonly emit: (event: DiagnosticEvent) => void) {}

  track(details: EvaluationDetails, userId: string | undefined): void {
    if (userId !== this.userId) {
      this.userId = userId;
      this.reported = new WeakSet();
    }
    if (this.reported.has(details)) return;
    this.reported.add(details);
    const { key, reason, value, errorCode } = details;
    if (reason === 'OVERRIDE' || errorCode === 'PROVIDER_NOT_READY') return;
    if (errorCode === 'FLAG_NOT_FOUND') {
      if (!this.unknownKeys.has(key)) {
        this.unknownKeys.add(key);
        this.emit({ type: 'unregistered_flag', key });
      }
      return;
    }
    const combination = `${key}\u0000${userId ?? ''}\u0000${JSON.stringify(value)}`;
    if (this.combinations.has(combination)) return;
    // Bounded even when nothing flushes (flushInterval 0): at worst a combination is reported twice.
    if (this.combinations.size >= MAX_COMBINATIONS) this.combinations.clear();
    this.combinations.add(combination);
    const event: DiagnosticEvent = { type: 'evaluation', key, reason, value: value ?? null };
    if (userId !== undefined) event.userId = userId;
    this.emit(event);
  }

  /** Starts a new flush window: combinations may be reported again. */
  newWindow(): void {
    this.reported = new WeakSet();
    this.combinations.clear();
  }
}
