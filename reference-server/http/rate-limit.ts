/** Buckets held before the first sweep of full ones. */
const FIRST_SWEEP_AT = 1024;

/**
 * Rate limiting of the /sdk/v1/ routes: a token bucket per name (an SDK key, a client
 * address), refilled at `perSecond` tokens a second and holding at most twice that (a burst);
 * `perSecond` 0 is no limit. A bucket that has refilled is the same as none, so once the map
 * doubles, full ones are dropped: memory follows the names active in the last two seconds,
 * however many addresses a client cycles through.
 */
export function createRateLimiter(perSecond: number, now: () => number = Date.now) {
  const capacity = perSecond * 2;
  const buckets = new Map<string, { tokens: number; at: number }>();
  let sweepAt = FIRST_SWEEP_AT;
  const sweep = (time: number) => {
    for (const [name, bucket] of buckets) {
      if (bucket.tokens + ((time - bucket.at) / 1000) * perSecond >= capacity) buckets.delete(name);
    }
    sweepAt = Math.max(FIRST_SWEEP_AT, buckets.size * 2);
  };
  return {
    /** Takes a token for `name`: 0 when one was left, else the milliseconds until the next one. */
    take(name: string): number {
      if (perSecond <= 0) return 0;
      const time = now();
      if (buckets.size >= sweepAt) sweep(time);
      const bucket = buckets.get(name) ?? { tokens: capacity, at: time };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((time - bucket.at) / 1000) * perSecond);
      bucket.at = time;
      buckets.set(name, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - bucket.tokens) / perSecond) * 1000);
    },
    /** Buckets held now. */
    get size(): number {
      return buckets.size;
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** Seconds of a Retry-After for a wait in milliseconds, rounded up. */
export function retryAfterSeconds(waitMs: number): string {
  return String(Math.ceil(waitMs / 1000));
}
