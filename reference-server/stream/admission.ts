import type { ErrorCode } from '../http/responses';
import { boundOf, type ServerLimits } from '../http/limits';
import { createRateLimiter, retryAfterSeconds, type RateLimiter } from '../http/rate-limit';
import { addressLimitKey } from '../http/client-address';
import type { Evictions } from '../stores/records';

/** Seconds a client refused for a stream limit is asked to wait. */
export const STREAM_RETRY_AFTER_S = 5;

export interface StreamRefusal {
  status: 429 | 503;
  code: ErrorCode;
  message: string;
  retryAfter: string;
  /** The eviction counter the refusal is counted in: a stream limit, or the request rate. */
  counter: keyof Pick<Evictions, 'streamsRefused' | 'requestsLimited'>;
}

export type StreamLimits = Pick<ServerLimits, 'streamsPerAddress' | 'streamsPerKey' | 'streamsTotal'>;

/** Open streams per name, counted as they open and close, so a handshake is checked without a scan. */
function createOpenCount() {
  const open = new Map<string, number>();
  return {
    change(name: string, change: 1 | -1): void {
      const count = (open.get(name) ?? 0) + change;
      if (count > 0) open.set(name, count);
      else open.delete(name);
    },
    of: (name: string) => open.get(name) ?? 0,
  };
}

const streamLimitRefusal = (status: 429 | 503, code: ErrorCode, message: string): StreamRefusal => ({
  status,
  code,
  message,
  retryAfter: String(STREAM_RETRY_AFTER_S),
  counter: 'streamsRefused',
});

/**
 * The stream limits: open streams per client address, per offered key and in all (0 is no
 * limit for the first two), and the request rate per address, which a handshake spends like
 * any /sdk/v1/ request.
 */
export function createStreamAdmission(limits: StreamLimits, openTotal: () => number, addressRate: RateLimiter = createRateLimiter(0)) {
  const perKey = createOpenCount();
  const perAddress = createOpenCount();
  return {
    /** Counts a stream from `address` offering `key` as it opens (1) or closes (-1). */
    count(key: string | undefined, address: string, change: 1 | -1): void {
      if (key !== undefined) perKey.change(key, change);
      perAddress.change(addressLimitKey(address), change);
    },
    /** Why a handshake from `address` offering `key` is refused, if it is; takes a token of the address's rate. */
    refusal(key: string | undefined, address: string): StreamRefusal | undefined {
      const limitKey = addressLimitKey(address);
      const waitMs = addressRate.take(limitKey);
      if (waitMs > 0) {
        return { status: 429, code: 'rate_limited', message: 'too many requests from this address: retry after Retry-After seconds', retryAfter: retryAfterSeconds(waitMs), counter: 'requestsLimited' };
      }
      if (openTotal() >= limits.streamsTotal) {
        return streamLimitRefusal(503, 'unavailable', `the server holds its limit of ${limits.streamsTotal} streams`);
      }
      if (perAddress.of(limitKey) >= boundOf(limits.streamsPerAddress)) {
        return streamLimitRefusal(429, 'rate_limited', `this address holds its limit of ${limits.streamsPerAddress} streams`);
      }
      if (key !== undefined && perKey.of(key) >= boundOf(limits.streamsPerKey)) {
        return streamLimitRefusal(429, 'rate_limited', `this SDK key holds its limit of ${limits.streamsPerKey} streams`);
      }
      return undefined;
    },
  };
}
