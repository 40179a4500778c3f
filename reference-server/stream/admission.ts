import type { ErrorCode } from '../http/responses';
import type { ServerLimits } from '../http/limits';

/** Seconds a client refused for a stream limit is asked to wait. */
export const STREAM_RETRY_AFTER_S = 5;

export interface StreamRefusal {
  status: 429 | 503;
  code: ErrorCode;
  message: string;
}

/**
 * The stream limits: open streams per offered key and in all. Counts the open streams per
 * key as they open and close, so a handshake is checked without a scan.
 */
export function createStreamAdmission(limits: Pick<ServerLimits, 'streamsPerKey' | 'streamsTotal'>, openTotal: () => number) {
  const openPerKey = new Map<string, number>();
  return {
    /** Counts a stream offering `key` as it opens (1) or closes (-1). */
    count(key: string | undefined, change: 1 | -1): void {
      if (key === undefined) return;
      const count = (openPerKey.get(key) ?? 0) + change;
      if (count > 0) openPerKey.set(key, count);
      else openPerKey.delete(key);
    },
    /** Why a handshake offering `key` is refused, if it is. */
    refusal(key: string | undefined): StreamRefusal | undefined {
      if (openTotal() >= limits.streamsTotal) {
        return { status: 503, code: 'unavailable', message: `the server holds its limit of ${limits.streamsTotal} streams` };
      }
      if (key !== undefined && (openPerKey.get(key) ?? 0) >= limits.streamsPerKey) {
        return { status: 429, code: 'rate_limited', message: `this SDK key holds its limit of ${limits.streamsPerKey} streams` };
      }
      return undefined;
    },
  };
}
