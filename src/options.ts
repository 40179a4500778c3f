import type { EvaluationContext } from './evaluation-types';
import { ConfigError, type FlagplaneError } from './errors';
import type { HttpTransport } from './http-types';
import type { Scheduler } from './scheduler';
import type { StreamTransport } from './stream/stream-transport';
import type { OnlineSource, VisibilitySource } from './platform/index';
import type { FlagSnapshot, JsonValue } from './snapshot-types';
import type { StorageAdapter } from './storage-types';

/** Per-key fallback values; `get('x')` returns the type of `defaults.x`. */
export type FlagDefaults = Record<string, JsonValue>;

/** Options of {@link createClient}. Names and defaults follow seed §2.5 and §8. */
export interface ClientOptions<D extends FlagDefaults = FlagDefaults> {
  /** Environment-scoped SDK key, `svc_sdk_server_…` or `svc_sdk_client_…`. */
  sdkKey: string;
  /** Data-plane origin, for example `https://flags.example.com`. */
  baseUrl: string;
  /** Fallback values served before a snapshot exists and for unknown keys. */
  defaults?: Partial<D>;
  /** Initial evaluation context. @default {} */
  context?: EvaluationContext;
  /** Poll interval in ms; `0` fetches once (a failure is still retried). @default 30000 */
  pollInterval?: number;
  /** How long `ready()` waits, in ms. @default 5000 */
  readyTimeout?: number;
  /** Per-request HTTP timeout in ms; `0` disables it. @default 10000 */
  requestTimeout?: number;
  /** A snapshot served until the first successful fetch (server rendering, tests). */
  bootstrap?: FlagSnapshot;
  /** Called with a typed error on fetch, schema, storage and stream failures. */
  onError?: (error: FlagplaneError) => void;
  /** HTTP transport. @default a transport on the global `fetch` */
  transport?: HttpTransport;
  /** Durable snapshot cache. @default none outside browsers */
  cache?: StorageAdapter;
  /** Timers, clock and randomness. @default the platform's */
  scheduler?: Scheduler;
  /** Batch diagnostic events to POST /sdk/v1/events. @default true */
  events?: boolean;
  /** Flush when the event buffer holds this many events. @default 50 */
  flushAt?: number;
  /** Event flush interval in ms; `0` disables the timer. @default 5000 */
  flushInterval?: number;
  /**
   * WebSocket gateway origin (`ws(s):` or `http(s):`); omit for polling only. Needs
   * `streamTransport`.
   */
  streamUrl?: string;
  /**
   * The socket adapter of the stream: `webSocketTransport` from `flagplane/adapters/websocket`
   * (browsers, React Native, Node 22+) or `wsTransport` from `flagplane/adapters/ws` (Node 20).
   */
  streamTransport?: StreamTransport;
  /** After `identify()`, fetch the trait overlay and merge it under session traits. @default true */
  remoteTraits?: boolean;
  /** Stable anonymous id, the bucketing key while no `userId` is set. */
  anonymousId?: string;
  /** Browsers: persist the snapshot in `cache` (localStorage by default). @default true */
  persist?: boolean;
  /** Storage key of the persisted snapshot. @default `flagplane:snapshot:<key fingerprint>` */
  storageKey?: string;
  /** Storage key of the generated anonymous id. @default 'svc:anonymousId' */
  anonymousStorageKey?: string;
  /** Pause polling while the page is hidden; refresh at once when it is visible again. @default true */
  pauseWhenHidden?: boolean;
  /** Make no request while offline, and reopen the stream when back online. @default true */
  pauseWhenOffline?: boolean;
  /** Where visibility comes from (React Native: wrap `AppState`). @default the document's */
  visibilitySource?: VisibilitySource;
  /** Where connectivity comes from (React Native: wrap NetInfo). @default `navigator.onLine` */
  onlineSource?: OnlineSource;
  /** Share accepted snapshots with other tabs of the same origin (BroadcastChannel). @default true */
  syncTabs?: boolean;
}

export const SDK_KEY_PATTERN = /^svc_sdk_(server|client)_[A-Za-z0-9_-]{8,128}$/;

/** Options with every default applied. */
export interface ResolvedOptions {
  sdkKey: string;
  baseUrl: string;
  pollInterval: number;
  readyTimeout: number;
  requestTimeout: number;
  storageKey: string | undefined;
  streamUrl: string | undefined;
  flushAt: number;
  flushInterval: number;
}

function duration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(`${name} must be a finite number >= 0, got ${String(value)}`);
  }
  return value;
}

/** Validates options; the only place the SDK throws. */
export function resolveOptions(options: ClientOptions<FlagDefaults>): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('createClient needs an options object');
  const { sdkKey, baseUrl } = options;
  if (typeof sdkKey !== 'string' || !SDK_KEY_PATTERN.test(sdkKey)) {
    throw new ConfigError('sdkKey must be "svc_sdk_server_<key>" or "svc_sdk_client_<key>" (<key>: 8-128 of A-Z a-z 0-9 _ -)');
  }
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/.test(baseUrl)) {
    throw new ConfigError(`baseUrl must be an http(s) origin, got ${JSON.stringify(baseUrl)}`);
  }
  const { streamUrl } = options;
  if (streamUrl !== undefined && (typeof streamUrl !== 'string' || !/^(ws|wss|http|https):\/\/[^/]/.test(streamUrl))) {
    throw new ConfigError(`streamUrl must be a ws(s) or http(s) origin, got ${JSON.stringify(streamUrl)}`);
  }
  if (streamUrl && !options.streamTransport) {
    throw new ConfigError("streamUrl needs streamTransport, e.g. webSocketTransport from 'flagplane/adapters/websocket'");
  }
  return {
    streamUrl,
    sdkKey,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    pollInterval: duration('pollInterval', options.pollInterval, 30_000),
    readyTimeout: duration('readyTimeout', options.readyTimeout, 5_000),
    requestTimeout: duration('requestTimeout', options.requestTimeout, 10_000),
    storageKey: options.storageKey,
    flushAt: Math.max(1, Math.floor(duration('flushAt', options.flushAt, 50))),
    flushInterval: duration('flushInterval', options.flushInterval, 5_000),
  };
}
