/**
 * Per-key rate limiting of the /sdk/v1/ routes: a token bucket per SDK key, refilled at
 * `perSecond` tokens a second and holding at most twice that (a burst). Only keys that
 * authenticated get a bucket, so its memory is bounded by the keys that exist.
 */
export function createRateLimiter(perSecond: number, now: () => number = Date.now) {
  const capacity = perSecond * 2;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes a token for `key`: 0 when one was left, else the milliseconds until the next one. */
    take(key: string): number {
      if (perSecond <= 0) return 0;
      const time = now();
      const bucket = buckets.get(key) ?? { tokens: capacity, at: time };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((time - bucket.at) / 1000) * perSecond);
      bucket.at = time;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - bucket.tokens) / perSecond) * 1000);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
