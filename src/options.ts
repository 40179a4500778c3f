import type { EvaluationContext } from './evaluation/evaluation-types';
import type { FlagDefaults } from './reads/flags-view';
import { ConfigError, type FlagplaneError } from './shared/errors';
import { fetchTransport } from './http/fetch-transport';
import { isString } from './shared/guards';
import type { HttpTransport } from './http/http-types';
import { defaultScheduler, type Scheduler } from './shared/scheduler';
import type { StreamTransport } from './stream/stream-transport';
import type { OnlineSource, VisibilitySource } from './platform/index';
import type { FlagSnapshot, JsonValue } from './snapshot/snapshot-types';
import type { StorageAdapter } from './storage/storage-types';

export type { FlagDefaults };

/**
 * Options of {@link createClient}. Defaults: protocol.md §8.4; every option: docs/client.md.
 * Each optional one also takes `undefined` (its default), under `exactOptionalPropertyTypes` too.
 */
export interface ClientOptions<D extends FlagDefaults = FlagDefaults> {
  /** Environment-scoped SDK key, `svc_sdk_server_…` or `svc_sdk_client_…`. */
  sdkKey: string;
  /** Data-plane origin, for example `https://flags.example.com`. */
  baseUrl: string;
  /**
   * Fallback values served before a snapshot exists and for unknown keys. Each is deeply
   * frozen in place when `createClient` takes it, never copied.
   */
  defaults?: Partial<D> | undefined;
  /** Initial evaluation context. @default {} */
  context?: EvaluationContext | undefined;
  /** Poll interval in ms; `0` fetches once (a failure is still retried). @default 30000 */
  pollInterval?: number | undefined;
  /** How long `ready()` waits, in ms. @default 5000 */
  readyTimeout?: number | undefined;
  /** Per-request HTTP timeout in ms; `0` disables it. @default 10000 */
  requestTimeout?: number | undefined;
  /**
   * A snapshot served until the first successful fetch (server rendering, tests). Each
   * variation a read serves is deeply frozen in place, never copied.
   */
  bootstrap?: FlagSnapshot | undefined;
  /** Called with a typed error on fetch, schema, storage and stream failures. */
  onError?: ((error: FlagplaneError) => void) | undefined;
  /** HTTP transport. @default a transport on the global `fetch` */
  transport?: HttpTransport | undefined;
  /** Durable snapshot cache. @default none outside browsers */
  cache?: StorageAdapter | undefined;
  /** Timers, clock and randomness. @default the platform's */
  scheduler?: Scheduler | undefined;
  /** Batch diagnostic events to POST /sdk/v1/events. @default true */
  events?: boolean | undefined;
  /** Flush when the event buffer holds this many events. @default 50 */
  flushAt?: number | undefined;
  /** Event flush interval in ms; `0` disables the timer. @default 5000 */
  flushInterval?: number | undefined;
  /**
   * WebSocket gateway origin (`ws(s):` or `http(s):`); omit for polling only. Needs
   * `streamTransport`.
   */
  streamUrl?: string | undefined;
  /**
   * The socket adapter of the stream: `webSocketTransport` from `flagplane/adapters/websocket`
   * (browsers, React Native, Node 22+) or `wsTransport` from `flagplane/adapters/ws` (Node 20).
   */
  streamTransport?: StreamTransport | undefined;
  /** After `identify()`, fetch the trait overlay and merge it under session traits. @default true */
  remoteTraits?: boolean | undefined;
  /** Stable anonymous id, the bucketing key while no `userId` is set. */
  anonymousId?: string | undefined;
  /**
   * Persist the snapshot and the anonymous id in `localStorage` when no `cache` is given.
   * @default true in a browser page (a `document` and a `window`), false elsewhere
   */
  persist?: boolean | undefined;
  /** Storage key of the persisted snapshot. @default `flagplane:snapshot:<key fingerprint>` */
  storageKey?: string | undefined;
  /** Storage key of the generated anonymous id. @default 'svc:anonymousId' */
  anonymousStorageKey?: string | undefined;
  /** Pause polling while the page is hidden; refresh at once when it is visible again. @default true */
  pauseWhenHidden?: boolean | undefined;
  /** Make no request while offline, and reopen the stream when back online. @default true */
  pauseWhenOffline?: boolean | undefined;
  /** Where visibility comes from (React Native: wrap `AppState`). @default the document's */
  visibilitySource?: VisibilitySource | undefined;
  /** Where connectivity comes from (React Native: wrap NetInfo). @default `navigator.onLine` */
  onlineSource?: OnlineSource | undefined;
  /**
   * Share accepted snapshots with other tabs of the same origin (BroadcastChannel).
   * @default true in a browser page (a `document` and a `window`), false elsewhere
   */
  syncTabs?: boolean | undefined;
  /**
   * Let a `svc_sdk_server_` key run where a `document` exists. Without it that is a
   * `ConfigError`: a server key is served the server-only flags, which a page would hand to
   * every visitor. Only for pages no visitor can read, such as an Electron renderer.
   * @default false
   */
  allowServerKeyInPage?: boolean | undefined;
}

/** Defaults of the numeric options; each must be a finite number >= 0. */
const NUMBER_DEFAULTS = {
  pollInterval: 30_000,
  readyTimeout: 5_000,
  requestTimeout: 10_000,
  flushAt: 50,
  flushInterval: 5_000,
};

/** Defaults of every option that has a fixed one. */
const DEFAULTS = { ...NUMBER_DEFAULTS, scheduler: defaultScheduler, transport: fetchTransport };

/** The string options: what each must match, and that rule in words for the ConfigError (`streamUrl` is optional). */
const PATTERNS = {
  sdkKey: [/^svc_sdk_(server|client)_[\w-]{8,128}$/, 'be svc_sdk_client_ or svc_sdk_server_ then 8 to 128 letters, digits, _ or -'],
  // An origin, maybe with a path: credentials, a query or a fragment would misroute every request.
  baseUrl: [/^https?:\/\/[^/?#@\s]+(\/[^?#\s]*)?$/i, 'be http(s)://host[/path]'],
  // The banner's full stream URL is fine; another route of the protocol is a mistake.
  streamUrl: [/^(ws|http)s?:\/\/[^/?#@\s]+(?!.*\/sdk\/(?!v1\/stream\/*$))(\/[^?#\s]*)?$/i, 'be ws(s):// or http(s)://host[/path][/sdk/v1/stream]'],
} as const;

/**
 * Options createClient calls into at once, and the methods each must have: a wrong shape is a
 * ConfigError here, not a TypeError from deep inside (a bad `transport`, `cache` or
 * `streamTransport` fails later, through onError, like any failing adapter).
 */
const SHAPES = {
  scheduler: 'setTimeout clearTimeout now random',
  visibilitySource: 'isVisible subscribe',
  onlineSource: 'isOnline subscribe',
};

// `URL` only double-checks a string the pattern already accepted: where there is none (bare
// Hermes), the pattern alone decides, rather than a missing global passing for a bad baseUrl.
const parses = (url: string) => {
  try {
    return (typeof __FLAGPLANE_BROWSER__ == 'undefined' && typeof URL > 'u') || !!new URL(url);
  } catch {
    return false;
  }
};

/** Options with every default applied. */
export interface ResolvedOptions extends Record<keyof typeof NUMBER_DEFAULTS, number> {
  sdkKey: string;
  /** Without a trailing slash. */
  baseUrl: string;
  storageKey: string | undefined;
  streamUrl: string | undefined;
  scheduler: Scheduler;
  transport: HttpTransport;
}

/** Validates options; the only place the SDK throws. */
export function resolveOptions(options: ClientOptions<FlagDefaults>): ResolvedOptions {
  // Object.assign tolerates `null` and non-objects: they fail the sdkKey check below. The
  // defaults go in first, so the options only overwrite members: adding members to a copy
  // one by one costs V8 a new hidden class each, about 5 µs per client.
  // What the client calls on the platform with no fallback (docs/runtimes.md), checked before
  // anything starts: a platform without one fails here, not mid-start with a timer armed.
  // Every browser the package's browser build serves has both: that build leaves the check out.
  if (typeof __FLAGPLANE_BROWSER__ == 'undefined') {
    const platform = globalThis as { AbortController?: unknown; TextEncoder?: { prototype: { encodeInto?: unknown } } };
    const missing = !platform.AbortController ? 'AbortController' : !platform.TextEncoder?.prototype.encodeInto && 'TextEncoder.encodeInto';
    if (missing) throw new ConfigError(`flagplane needs ${missing} (docs/runtimes.md)`);
  }
  const resolved: Record<string, unknown> = Object.assign({}, DEFAULTS, options as object);
  // `for…in` over the module's constants: no entry arrays to allocate on every client.
  for (const name in PATTERNS) {
    const [pattern, rule] = PATTERNS[name as keyof typeof PATTERNS];
    const value = resolved[name];
    if (value == null ? name !== 'streamUrl' : !(isString(value) && pattern.test(value) && (name === 'sdkKey' || parses(value)))) {
      // What it got: a string quoted and cut to 40 characters, an sdkKey to the 15 of its prefix
      // (a server key must not reach a log); anything else by its type.
      const got = isString(value) ? JSON.stringify(value.slice(0, name == 'sdkKey' ? 15 : 40)) : typeof value;
      throw new ConfigError(value == null ? `${name} is required` : `${name} must ${rule} (got ${got})`);
    }
  }
  for (const name in SHAPES) {
    const methods = SHAPES[name as keyof typeof SHAPES];
    const value = resolved[name] as Record<string, unknown> | undefined;
    if (value !== undefined && !methods.split(' ').every((method) => typeof value?.[method] === 'function')) {
      throw new ConfigError(`${name} must be an object with the functions ${methods}`);
    }
  }
  if (resolved.streamUrl && !resolved.streamTransport) throw new ConfigError('streamUrl needs streamTransport');
  // A server key is served the server-only flags too: in a page, any visitor could read them.
  if ((resolved.sdkKey as string).startsWith('svc_sdk_server_') && (globalThis as { document?: unknown }).document && !resolved.allowServerKeyInPage) {
    throw new ConfigError('a server key in a page shows server-only flags to every visitor: use a client key (or allowServerKeyInPage)');
  }
  for (const name in DEFAULTS) {
    const fallback = DEFAULTS[name as keyof typeof DEFAULTS];
    const value = resolved[name];
    // An option given as `undefined` takes its default.
    if (value === undefined) resolved[name] = fallback;
    else if (typeof fallback === 'number' && !(Number.isFinite(value) && (value as number) >= 0)) {
      throw new ConfigError(`${name} must be a finite number >= 0 (got ${String(value)})`);
    }
  }
  const checked = resolved as unknown as ResolvedOptions;
  checked.baseUrl = checked.baseUrl.replace(/\/+$/, '');
  checked.flushAt = Math.max(1, Math.floor(checked.flushAt));
  return checked;
}
