import type { IncomingHttpHeaders } from 'node:http';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { requireSdkKey } from '../http/auth';
import { ifNoneMatchHits, snapshotEtag } from '../http/etag';
import { EVENT_LIMITS, validateEventBatch } from '../validation/event-batch';
import { routeEvents, storeRoutedEvents } from './event-routing';
import type { HandlerResult } from '../http/responses';
import { RouteError } from '../http/responses';
import { isJsonContentType, parseJsonBody } from '../http/request-body';
import type { HandlerRequest, Route } from '../http/router';
import { createRateLimiter, retryAfterSeconds, type RateLimiter } from '../http/rate-limit';
import { addressLimitKey } from '../http/client-address';
import { createCompressionCache, type CompressionCache } from '../http/compression';
import { codingFor, encodedOk, etagIn } from '../http/encoded-answer';
import { DEFAULT_LIMITS } from '../http/limits';
import type { AnalyticsStore, IdentifyQueueStore, ReferenceServerStores } from '../stores/contracts';
import type { KeyKind, KeyRecord } from '../stores/records';
import { snapshotJson } from '../stores/snapshot-json';

/** Where accepted identify events and production evaluations go: memory, or Postgres. */
export interface EventStores {
  identifyQueue: IdentifyQueueStore;
  analytics: AnalyticsStore;
}

/** The snapshot a key may read: client keys see only `clientSide: true` flags (protocol.md §1). */
export function snapshotForKey(snapshot: FlagSnapshot, kind: KeyKind): FlagSnapshot {
  if (kind === 'server') return snapshot;
  const flags = Object.fromEntries(
    Object.entries(snapshot.flags).filter(([, flag]) => (flag as { clientSide?: unknown } | null)?.clientSide === true),
  );
  return { ...snapshot, flags };
}

function invalidRequest(path: string, message: string): RouteError {
  return new RouteError(400, 'invalid_request', message, path);
}

/** The request header that carries the minimum version (protocol.md §3). */
export const MIN_VERSION_HEADER = 'flagplane-min-version';

/** One `minVersion` value: absent, or exactly one non-negative integer. */
function parseVersion(values: readonly string[], name: string): number | undefined {
  if (values.length === 0) return undefined;
  const [value] = values;
  const parsed = value !== undefined && /^\d+$/.test(value) ? Number(value) : NaN;
  if (values.length > 1 || !Number.isSafeInteger(parsed)) {
    throw invalidRequest(name, `${name} must be one non-negative integer no larger than 2^53 - 1`);
  }
  return parsed;
}

/**
 * The minimum version (protocol.md §3): the `Flagplane-Min-Version` header, which clients
 * send, else the `minVersion` query parameter, still taken; each is checked when present.
 */
export function parseMinVersion(query: URLSearchParams, headers: IncomingHttpHeaders = {}): number | undefined {
  const header = headers[MIN_VERSION_HEADER];
  // node:http joins a repeated custom header with ', ', which the integer check refuses.
  const fromHeader = parseVersion(header === undefined ? [] : [String(header)], 'Flagplane-Min-Version');
  const fromQuery = parseVersion(query.getAll('minVersion'), 'minVersion');
  return fromHeader ?? fromQuery;
}

/** The request rates of the /sdk/v1/ routes, and whom a request counts against. */
export interface SdkRateLimits {
  /** @default no limit */
  perKey?: RateLimiter;
  /** @default no limit */
  perAddress?: RateLimiter;
  /** The client's address (http/client-address.ts). @default the socket's */
  clientAddress?: (request: HandlerRequest) => string;
}

/** The request's SDK key, once it is known and within its rate (a 401 or a 429 otherwise). */
type Authorize = (request: HandlerRequest) => KeyRecord;

function createAuthorize(stores: ReferenceServerStores, rates: SdkRateLimits): Authorize {
  const perKey = rates.perKey ?? createRateLimiter(0);
  const perAddress = rates.perAddress ?? createRateLimiter(0);
  const clientAddress = rates.clientAddress ?? ((request: HandlerRequest) => request.remoteAddress ?? 'unknown');
  const refuse = (waitMs: number, whose: string) => {
    stores.evictions.requestsLimited += 1;
    return new RouteError(429, 'rate_limited', `too many requests ${whose}: retry after Retry-After seconds`, undefined, {
      'Retry-After': retryAfterSeconds(waitMs),
    });
  };
  return (request) => {
    // Before the key: a flood of bad keys from one address is limited too.
    const addressWait = perAddress.take(addressLimitKey(clientAddress(request)));
    if (addressWait > 0) throw refuse(addressWait, 'from this address');
    const key = requireSdkKey(request.headers, stores.keys);
    const keyWait = perKey.take(key.key);
    if (keyWait > 0) throw refuse(keyWait, 'with this SDK key');
    return key;
  };
}

/**
 * The bodies of GET /sdk/v1/snapshot, assembled once per snapshot and key kind: a snapshot
 * is never changed once stored (a publish stores a new object), so its object is the cache key.
 * Each flag's JSON is reused from the versions before (stores/snapshot-json.ts).
 */
function createSnapshotBodies() {
  const bodies = new Map<string, { snapshot: FlagSnapshot; body: Buffer }>();
  return (environmentId: string, kind: KeyKind, snapshot: FlagSnapshot): Buffer => {
    const slot = `${kind} ${environmentId}`;
    const cached = bodies.get(slot);
    if (cached?.snapshot === snapshot) return cached.body;
    const body = snapshotJson(snapshot, kind === 'server' ? 'all' : 'client-side');
    bodies.set(slot, { snapshot, body });
    return body;
  };
}

type SnapshotBodies = ReturnType<typeof createSnapshotBodies>;

/** The snapshot in the coding `Accept-Encoding` asks for (http/encoded-answer.ts); its ETag weak when compressed. */
async function getSnapshot(stores: ReferenceServerStores, authorize: Authorize, bodyOf: SnapshotBodies, compression: CompressionCache, request: HandlerRequest): Promise<HandlerResult> {
  const key = authorize(request);
  parseMinVersion(request.query, request.headers);
  const snapshot = stores.environments.current(key.environmentId);
  if (!snapshot) throw new Error(`environment "${key.environmentId}" has no current snapshot`);
  const body = bodyOf(key.environmentId, key.kind, snapshot);
  const coding = codingFor(compression, request.headers, body);
  const etag = etagIn(snapshotEtag(snapshot.version), coding);
  const headers = { ETag: etag, 'Cache-Control': 'no-cache', Vary: 'Authorization, Accept-Encoding' };
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return { status: 304, headers };
  return encodedOk(compression, { slot: `snapshot ${key.kind} ${key.environmentId}`, version: snapshot.version }, coding, body, headers);
}

async function postEvents(stores: ReferenceServerStores, authorize: Authorize, events: EventStores, request: HandlerRequest): Promise<HandlerResult> {
  const key = authorize(request);
  if (!isJsonContentType(request.headers)) {
    throw new RouteError(415, 'unsupported_media_type', 'the events body must be sent as Content-Type: application/json');
  }
  const body = parseJsonBody(await request.readBody(EVENT_LIMITS.bodyBytes));
  const check = validateEventBatch(body);
  if (!check.ok) throw new RouteError(400, 'invalid_batch', check.message, check.path);
  const environment = stores.environments.get(key.environmentId);
  if (!environment) throw new Error(`environment "${key.environmentId}" is missing`);
  const routed = routeEvents(check.batch.events, environment, new Date().toISOString());
  await storeRoutedEvents(routed, { ...events, diagnostics: stores.diagnostics });
  return { status: 202, body: { accepted: check.batch.events.length } };
}

function getIdentity(stores: ReferenceServerStores, authorize: Authorize, request: HandlerRequest): HandlerResult {
  const key = authorize(request);
  const userIds = request.query.getAll('userId');
  const [userId] = userIds;
  if (userIds.length !== 1 || userId === undefined || userId.length === 0 || userId.length > EVENT_LIMITS.userId) {
    throw invalidRequest('userId', `userId must be given once, as a string of 1 to ${EVENT_LIMITS.userId} characters`);
  }
  const traits = stores.traits.get(key.environmentId, userId) ?? {};
  return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: { userId, traits } };
}

function streamWithoutUpgrade(): HandlerResult {
  throw new RouteError(426, 'upgrade_required', 'this route is a WebSocket: connect with Upgrade: websocket', undefined, {
    Upgrade: 'websocket',
  });
}

/** GET snapshot, POST events, GET identity, and the plain-HTTP face of the stream route. */
export function createSdkRoutes(
  stores: ReferenceServerStores,
  events: EventStores,
  rates: SdkRateLimits = {},
  compression: CompressionCache = createCompressionCache(DEFAULT_LIMITS.compressedCacheBytes),
): Route[] {
  const bodyOf = createSnapshotBodies();
  const authorize = createAuthorize(stores, rates);
  return [
    { pattern: '/sdk/v1/snapshot', methods: { GET: (request) => getSnapshot(stores, authorize, bodyOf, compression, request) } },
    { pattern: '/sdk/v1/events', methods: { POST: (request) => postEvents(stores, authorize, events, request) } },
    { pattern: '/sdk/v1/identity', methods: { GET: (request) => getIdentity(stores, authorize, request) } },
    { pattern: '/sdk/v1/stream', methods: { GET: streamWithoutUpgrade } },
  ];
}
