import { afterEach, beforeEach, vi } from 'vitest';

/** Fake timers in each test of the file (STYLE.md: fake timers for the state machine), real ones after it. */
export function useFakeTimersInEachTest(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
