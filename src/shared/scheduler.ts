/** Timers and clocks the client uses; inject one to control time in tests. */
export interface Scheduler {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  /** Milliseconds since the epoch. */
  now(): number;
  /** A number in [0, 1), used for jitter. */
  random(): number;
}

// Globals are looked up on every call, never captured at import time, so that fake
// timers installed after this module loads still reach them.
export const defaultScheduler: Scheduler = {
  // Platforms fire a delay over 2^31-1 ms (24.8 days) at once: a huge Retry-After or
  // pollInterval would turn into a loop. Clamped, it waits as long as a timer can.
  setTimeout: (callback, ms) => setTimeout(callback, Math.min(ms, 2 ** 31 - 1)),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
  random: () => Math.random(),
};
