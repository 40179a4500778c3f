/** `Retry-After` in ms (delta-seconds or an HTTP date), or `null`. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  // A date is NaN as a number, so it falls through to `Date.parse` (NaN when it is neither).
  const ms = Number.isFinite(+value) ? +value * 1000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? null : Math.max(0, ms);
}
