/** A whole number from 0 to 2^53 - 1: a snapshot version, a `lastKnownVersion`, an event's version. */
export function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
