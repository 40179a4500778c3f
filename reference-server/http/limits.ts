/**
 * What the reference server holds and accepts at most (docs/reference-server.md, Limits).
 * Each has a default that keeps a server under a few hundred MiB whatever public clients
 * send; `startReferenceServer({ limits })`, a config file's `limits` and the CLI's
 * `--limit name=value` change them.
 */
export interface ServerLimits {
  /** Time a client has to send its request headers before a 408. */
  headersTimeoutMs: number;
  /** Time a client has to send its whole request, body included, before a 408. */
  requestTimeoutMs: number;
  /** Events kept per environment and event type (analytics and diagnostics); older ones are evicted. */
  eventsPerKind: number;
  /** Identify rows kept per environment; older ones are evicted. */
  identifyRows: number;
  /** Hours an event is kept after it was received (analytics and diagnostics); older ones are pruned. */
  eventsMaxAgeHours: number;
  /** Hours an identify row is kept after it was received, consumed or not; older ones are pruned. */
  identifyMaxAgeHours: number;
  /** Snapshot versions kept per environment, the current one included. */
  snapshotVersions: number;
  /** Users with a trait overlay per environment; the least recently written is evicted. */
  traitUsers: number;
  /**
   * Open streams per client address (an IPv6 one by its /64; see `trustProxy` behind a proxy);
   * past it a handshake is refused with a 429; 0 is no limit.
   */
  streamsPerAddress: number;
  /** Open streams per SDK key; past it a handshake is refused with a 429; 0 is no limit (a client key is shared by every visitor). */
  streamsPerKey: number;
  /** Open streams in all; past it a handshake is refused with a 503. */
  streamsTotal: number;
  /** Requests per second per client address on the /sdk/v1/ routes and stream handshakes, with bursts of twice that; 0 is no limit. */
  requestsPerSecondPerAddress: number;
  /** Requests per second per SDK key on the /sdk/v1/ routes, with bursts of twice that; 0 is no limit. */
  requestsPerSecondPerKey: number;
  /** Admin change feeds (GET /admin/v1/changes) open at once; past it a feed is refused with a 503. */
  changeFeeds: number;
  /** Bytes of an admin request body, as sent and once decompressed (`Content-Encoding: gzip`); past it a 413. */
  adminBodyBytes: number;
  /**
   * Bytes of compressed snapshots and admin listings kept (one per version, key kind and
   * coding); the least recently served go first. A body longer than this is sent uncompressed.
   */
  compressedCacheBytes: number;
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  eventsPerKind: 10_000,
  identifyRows: 10_000,
  eventsMaxAgeHours: 168,
  identifyMaxAgeHours: 168,
  snapshotVersions: 50,
  traitUsers: 10_000,
  // An office or a carrier NAT of a few hundred people, a tab or two each, fits; one client
  // holds at most a twentieth of streamsTotal.
  streamsPerAddress: 500,
  streamsPerKey: 0,
  streamsTotal: 10_000,
  requestsPerSecondPerAddress: 0,
  requestsPerSecondPerKey: 0,
  changeFeeds: 32,
  // A 30,000-flag snapshot of five-rule experiment flags (about 1.1 KiB each) fits.
  adminBodyBytes: 32 * 1024 * 1024,
  // A 10,000-flag snapshot (12 MiB of JSON) is about 1 MiB in each coding: dozens of such environments fit.
  compressedCacheBytes: 64 * 1024 * 1024,
};

/** The limits whose 0 means "no limit"; every other one is at least 1. */
const ZERO_IS_OFF: ReadonlySet<string> = new Set(['streamsPerAddress', 'streamsPerKey', 'requestsPerSecondPerAddress', 'requestsPerSecondPerKey']);

/** A limit of `ZERO_IS_OFF` as the bound admission and rate checks compare with. */
export function boundOf(limit: number): number {
  return limit === 0 ? Infinity : limit;
}

/** The limits with defaults for those not given; a value that is not a whole number (≥ 1, or ≥ 0 where 0 is no limit) is a RangeError. */
export function resolveLimits(given: Partial<Record<keyof ServerLimits, unknown>> = {}): ServerLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(given)) {
    if (!(name in DEFAULT_LIMITS)) throw new RangeError(`unknown limit "${name}"; the limits are ${Object.keys(DEFAULT_LIMITS).join(', ')}`);
    if (value === undefined) continue;
    const least = ZERO_IS_OFF.has(name) ? 0 : 1;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least || (name.endsWith('Ms') && value > 2 ** 31 - 1)) {
      const range = name.endsWith('Ms') ? ' to 2147483647' : least === 0 ? ' (0 is no limit)' : '';
      throw new RangeError(`limit ${name} must be a whole number from ${least}${range}, not ${JSON.stringify(value)}`);
    }
    limits[name as keyof ServerLimits] = value;
  }
  return limits;
}
