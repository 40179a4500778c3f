import { memo } from './memo';
import { isString } from '../shared/guards';

// RFC 3339 profile of ISO 8601: a date (midnight UTC), or a date-time with a mandatory
// `Z` or ±HH:MM offset. A date-time without offset is rejected because ECMAScript reads
// it as device-local time: two devices would disagree. The day is checked below.
const ISO =
  /^(\d{4})-(0[1-9]|1[0-2])-(\d\d)(?:T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d+))?)?(?:Z|([+-])([01]\d|2[0-3]):([0-5]\d)))?$/;

/**
 * Epoch milliseconds of a date attribute or value: a finite number is taken as epoch
 * milliseconds, a string must match the profile above. Anything else is `NaN`, which
 * makes every comparison false. Computed by hand, never with Date.parse, whose
 * leniency differs between engines.
 */
export const toEpochMs = (x: unknown): number =>
  isString(x) ? parseDate(x) : Number.isFinite(x) ? (x as number) : NaN;

const parseDate = memo((x: string): number => {
  const m = ISO.exec(x);
  if (!m) return NaN;
  // Indexed reads: destructuring a match array goes through its iterator, slowly.
  const f = (i: number): number => +(m[i] ?? 0);
  const d = f(3);
  // Milliseconds are the fraction's first three digits, truncated. Shifted by 400 years
  // (exactly 146097 days), Date.UTC never sees years 0-99, which it reads as 1900-1999.
  const wall = Date.UTC(f(1) + 400, f(2) - 1, d, f(4), f(5), f(6), +`${m[7] ?? ''}00`.slice(0, 3)) - 146097 * 864e5;
  // Date.UTC rolls 02-30 over into March: a day that moved was not a real date.
  return new Date(wall).getUTCDate() !== d ? NaN : wall - (m[8] === '-' ? -1 : 1) * (f(9) * 60 + f(10)) * 6e4;
});
