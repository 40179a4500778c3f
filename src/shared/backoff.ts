export interface BackoffOptions {
  /** Delay of the first retry in ms. */
  base: number;
  /** Upper bound of the delay before jitter, in ms. */
  max: number;
  /** Jitter as a fraction of the delay; the added jitter is `delay * jitter * random`. */
  jitter: number;
  /** A number in [0, 1). */
  random: number;
}

/**
 * The SDK's one retry policy — failed fetches, event flushes and stream reconnects: 1 s
 * doubling up to 60 s, plus up to 20 % jitter.
 */
export const RETRY_POLICY = { base: 1000, max: 60_000, jitter: 0.2 };

/**
 * Delay before retry number `attempt` (1-based): `base * 2^(attempt-1)`, capped at
 * `max`, plus up to `jitter` of itself.
 */
export function nextDelay(attempt: number, { base, max, jitter, random }: BackoffOptions): number {
  const delay = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(delay + delay * jitter * random);
}
