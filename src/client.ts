import type { ChangeEvent, FlagsClient } from './client-types';
import { initialState, type MachineState, type ReadyResult } from './machine/client-state';
import { ConfigError, FlagplaneError, messageOf } from './shared/errors';
import type { EvaluationContext, EvaluationDetails } from './evaluation/evaluation-types';
import { createEventSender } from './events/event-sender';
import { generateId, loadAnonymousId } from './events/anonymous-id';
import { browserStorage } from './storage/default-storage';
import { createOverlayFetcher, type Traits } from './events/identity';
import { isId, isRecord, isString } from './shared/guards';
import { createTabSync, watchPageExit } from './platform/index';
import { watchActivity } from './platform/activity';
import { createFlagValues, noContext, resolveRead, type FlagValues } from './evaluation/flag-values';
import { fingerprint } from './shared/fingerprint';
import { createHttpClient } from './http/http-client';
import { resolveOptions, type ClientOptions, type FlagDefaults } from './options';
import { openSnapshotCache } from './storage/snapshot-cache';
import { checkSnapshot } from './snapshot/snapshot-parse';
import { SNAPSHOT_ROUTE, snapshotOutcomeToEvent, snapshotRequest } from './snapshot/snapshot-fetch';
import type { FlagSnapshot, JsonValue } from './snapshot/snapshot-types';
import { buildOverrides, changedOverrides, type Overrides } from './evaluation/overrides';
import { createSubscribable } from './shared/subscribable';
import { createStreamLink } from './stream/stream-link';
import { transition, type Effect, type MachineEvent, type TimerName } from './machine/transition';

/**
 * Creates a feature-flag client and starts fetching. Throws a `ConfigError` for invalid
 * options — the only throw in the SDK; everything after reports through `onError`.
 */
export function createClient<D extends FlagDefaults = FlagDefaults>(options: ClientOptions<D>): FlagsClient<D> {
  const config = resolveOptions(options as ClientOptions);
  const { scheduler } = config;
  // Going away, the page ends every request and the socket: none of that is a failure. A page
  // the back-forward cache shows again catches up at once.
  const page = watchPageExit(
    () => stream.disconnect(),
    () => {
      dispatch({ type: 'refresh' });
      if (state.activity !== 'offline') stream.connect();
    },
  );
  const http = createHttpClient(config, page.exits);
  // No prototype: a key such as `__proto__` or `toString` must not read Object.prototype.
  const defaults: Record<string, JsonValue | undefined> = Object.assign(Object.create(null), options.defaults);
  let context: EvaluationContext = options.context ?? noContext();
  let overrides: Overrides = new Map();
  let sessionTraits = (context.attributes ?? {}) as Traits;
  /** Identified while offline: the user whose overlay is fetched back online. */
  let overlayDue: string | undefined;
  const callOnError = (error: FlagplaneError) => {
    try {
      options.onError?.(error);
    } catch {
      // The app's own error handler failed; there is nowhere left to report it.
    }
  };
  const events =
    options.events === false
      ? null
      : createEventSender(
          // Object.assign, not a spread with members after it: V8 adds those one hidden class
          // at a time, about 1.7 µs per object.
          Object.assign({}, config, {
            // Its own HTTP client: close() aborts polling but still sends the last flush.
            http: createHttpClient(config, page.exits),
            // Not buffered: the event sender's own errors would feed themselves.
            report: callOnError,
          }),
        );
  const storage = options.cache ?? (options.persist === false ? undefined : browserStorage());
  let anonymousId = options.anonymousId || generateId(scheduler.random);
  const bucketingKeyOf = (reader: EvaluationContext) => reader.userId ?? anonymousId;
  const bucketingKey = () => bucketingKeyOf(context);
  const keyFingerprint = fingerprint(config.sdkKey);
  const storageKey = config.storageKey ?? `flagplane:snapshot:${keyFingerprint}`;

  let state: MachineState = initialState();
  const flags = createFlagValues({ snapshot: null, context, bucketingKey: bucketingKey() });
  let snapshotController: AbortController | undefined;
  // The latest snapshot fetch, settled once its outcome is dispatched.
  let fetching = Promise.resolve();
  const timers: Partial<Record<TimerName, unknown>> = {};
  let resolveReady!: (result: ReadyResult) => void;
  const readyPromise = new Promise<ReadyResult>((resolve) => (resolveReady = resolve));

  const reportError = (error: FlagplaneError) => {
    events?.error(error);
    callOnError(error);
  };
  /** An app callback (a listener, a custom source or transport) threw. */
  const threw = (what: string, cause: unknown) =>
    reportError(new FlagplaneError('listener', `${what} threw: ${messageOf(cause)}`, cause));
  const listeners = createSubscribable<ChangeEvent>((cause) => threw('a subscribe listener', cause));

  /** Arms the timer (replacing it), or only clears it when `delay` is `null`. */
  const setTimer = (name: TimerName, delay: number | null) => {
    scheduler.clearTimeout(timers[name]);
    if (delay === null) return;
    timers[name] = scheduler.setTimeout(() => {
      // A fired id is never cleared: a platform may reuse it for another timer.
      timers[name] = undefined;
      dispatch({ type: name });
    }, delay);
  };

  /** Resolves when the fetch in flight, or the one that replaced it, has finished. */
  const fetched = (): Promise<void> => {
    const current = fetching;
    return current.then(() => (current === fetching ? undefined : fetched()));
  };

  function run(effect: Effect): void {
    switch (effect.type) {
      case 'fetch': {
        setTimer('poll-due', null);
        if (snapshotController) http.abort(snapshotController);
        const controller = new AbortController();
        snapshotController = controller;
        fetching = http.send(SNAPSHOT_ROUTE, snapshotRequest(state.etag, effect.minVersion), controller).then((outcome) => {
          // A newer fetch replaced this one: its answer no longer counts.
          const event = snapshotController === controller && snapshotOutcomeToEvent(outcome, scheduler.now(), scheduler.random());
          if (event) dispatch(event);
        });
        return;
      }
      case 'timer':
        return setTimer(effect.timer, effect.delay);
      case 'resolve-ready':
        setTimer('ready-timeout', null);
        return resolveReady(effect.result);
      case 'report':
        return reportError(effect.error);
      case 'persist':
        persist?.(effect);
        return tabs?.publish(effect);
      case 'version_skew':
        return events?.push(effect);
      case 'stop':
        for (const name of Object.keys(timers) as TimerName[]) setTimer(name, null);
        http.abort();
        page.stop();
        tabs?.close();
        listeners.clear();
        // The link reports what a custom stream transport throws; a platform source is ours to guard.
        stream.disconnect();
        try {
          activity.stop();
        } catch (cause) {
          threw('closing', cause);
        }
    }
  }

  // After close() the listeners are gone: what reads return stays as it was, so that no two
  // readers (one subscribed before close(), one after) can disagree.
  const closed = () => state.status.connection === 'stopped';

  /** Tells the listeners what changed; `getAll()` builds a new object only if a flag did. */
  function notify(changed: ReadonlySet<string>, statusChanged?: boolean): void {
    if (changed.size > 0) own.changed();
    if (changed.size > 0 || statusChanged) listeners.emit({ changed, status: state.status });
  }

  /** After a change of snapshot, context or bucketing key: the flags read so far are evaluated again. */
  function reevaluate(statusChanged?: boolean): void {
    notify(flags.update({ snapshot: state.snapshot, context, bucketingKey: bucketingKey() }), statusChanged);
  }

  function dispatch(event: MachineEvent): void {
    const previous = state;
    const next = transition(previous, event, config);
    state = next.state;
    const statusChanged = state.status !== previous.status;
    if (state.snapshot !== previous.snapshot) reevaluate(statusChanged);
    else notify(new Set(), statusChanged);
    for (const effect of next.effects) {
      // A listener or onError that refreshed or closed meanwhile made this step's fetch and
      // timers stale: the newer step armed its own.
      if (state === next.state || (effect.type !== 'fetch' && effect.type !== 'timer')) run(effect);
    }
    if (state.activity !== previous.activity && !closed()) {
      // Reconnects wait for the network: no socket while offline.
      if (state.activity !== 'offline') {
        stream.connect();
        if (overlayDue) void fetchOverlay(overlayDue);
        overlayDue = undefined;
      } else stream.disconnect();
    }
  }

  /**
   * The read path over `values` (the client's own, or a view's) with the overrides and the
   * snapshot they serve, reported for `user`; `silent` reads report no event (`getAll`).
   */
  function read(
    values: FlagValues,
    served: Overrides,
    snapshot: FlagSnapshot | null,
    user: string,
    key: string,
    fallback: JsonValue | undefined,
    silent?: boolean,
  ): EvaluationDetails<JsonValue | undefined> {
    const override = served.size ? served.get(key) : undefined;
    // One lookup finds the details and the event sender's mark.
    const entry = override ? undefined : values.entry(key);
    // An override is served like a flag: of another JSON type than the fallback, it is not.
    const result = resolveRead(key, override ?? entry!.details, override ?? snapshot, fallback === undefined ? defaults[key] : fallback);
    if (!silent) {
      try {
        // The mark belongs to the served details only: a fallback served instead has none.
        events?.track(result as EvaluationDetails, user, result === entry?.details ? entry : undefined);
      } catch {
        // A read never throws, not even for a key that is not a string.
      }
    }
    return result;
  }

  /** A reader's `get`, `getDetails` and `getAll` over `details`; `getAll` is kept until `changed()` says otherwise. */
  const readsOf = (
    details: (key: string, fallback: JsonValue | undefined, silent?: boolean) => EvaluationDetails<JsonValue | undefined>,
    keys: () => Iterable<string>,
  ) => {
    let all: Record<string, JsonValue> | null = null;
    return {
      get: ((key: string, fallback?: JsonValue) => details(key, fallback).value) as FlagsClient['get'],
      getDetails: ((key: string, fallback?: JsonValue) => details(key, fallback)) as FlagsClient['getDetails'],
      getAll: () =>
        // Built from entries: a flag named `__proto__` stays a key, never the prototype.
        (all ??= Object.fromEntries(
          [...new Set([...Object.keys(defaults), ...keys()])]
            .map((key) => [key, details(key, undefined, true).value])
            .filter(([, value]) => value !== undefined),
        )),
      changed: () => void (all = null),
    };
  };
  const own = readsOf(
    (key, fallback, silent) => read(flags, overrides, state.snapshot, bucketingKey(), key, fallback, silent),
    () => [...flags.readAll(), ...overrides.keys()],
  );

  /** A snapshot from elsewhere than the network, or the failure to read one. */
  const offer = (
    source: 'bootstrap' | 'cache' | 'tab',
    found: { snapshot: FlagSnapshot; etag?: string | null } | { error: FlagplaneError },
  ) => {
    if ('error' in found) reportError(found.error);
    else dispatch({ type: 'snapshot-received', snapshot: found.snapshot, etag: found.etag ?? null, source });
  };

  if (!options.anonymousId) {
    loadAnonymousId(storage, options.anonymousStorageKey ?? 'svc:anonymousId', anonymousId, (stored) => {
      // Too late after close(): reads stay as they were.
      if (closed()) return;
      anonymousId = stored;
      // With a userId set, this changes nothing and notifies no one.
      reevaluate();
    }, reportError);
  }

  const fetchOverlay = createOverlayFetcher(
    http,
    () => context.userId,
    (traits) => {
      // Session traits win over the overlay on conflict (protocol.md §8.3).
      context = { ...context, attributes: { ...traits, ...sessionTraits } };
      reevaluate();
    },
    reportError,
  );

  if (options.bootstrap) offer('bootstrap', checkSnapshot(options.bootstrap, 'bootstrap'));
  const persist = storage && openSnapshotCache(storage, storageKey, keyFingerprint, (cached) => offer('cache', cached), reportError);
  const stream = createStreamLink(
    Object.assign({}, config, {
      transport: options.streamTransport,
      lastKnownVersion: () => state.status.version,
      dispatch,
      onError: reportError,
    }),
  );
  const activity = watchActivity(options, (current) => dispatch({ type: 'activity', activity: current }));
  const tabs =
    options.syncTabs === false
      ? null
      : createTabSync(`flagplane:${keyFingerprint}`, (message) => offer('tab', message));
  dispatch({ type: 'start', activity: activity.current() });

  const client: FlagsClient<FlagDefaults> = {
    ready: () => readyPromise,
    get: own.get,
    getDetails: own.getDetails,
    getAll: own.getAll,
    forContext(viewContext) {
      // What the client holds now: a request renders from one snapshot, whatever lands meanwhile.
      const { snapshot } = state;
      const served = overrides;
      const context = viewContext ?? noContext();
      const user = bucketingKeyOf(context);
      const values = createFlagValues({ snapshot, context, bucketingKey: user });
      const view = readsOf(
        (key, fallback, silent) => read(values, served, snapshot, user, key, fallback, silent),
        () => [...values.readAll(), ...served.keys()],
      );
      return { get: view.get, getDetails: view.getDetails, getAll: view.getAll, getContext: () => context };
    },
    getStatus: () => state.status,
    getContext: () => context,
    setContext(next) {
      if (closed()) return;
      context = next ?? noContext();
      sessionTraits = (context.attributes ?? {}) as Traits;
      reevaluate();
    },
    setOverrides(values) {
      if (closed()) return;
      if (values != null && !isRecord(values)) return reportError(new ConfigError('setOverrides needs an object of flag values'));
      const next = buildOverrides(values ?? {});
      const changed = changedOverrides(overrides, next);
      overrides = next;
      notify(changed);
    },
    async identify(userId, traits) {
      if (closed()) return;
      const id: unknown = userId;
      let json: unknown;
      let problem = isId(id) ? '' : `a userId of 1 to 256 characters, got ${isString(id) ? `${id.length} characters` : typeof id}`;
      // The traits as the identify event sends them (the server takes 100 at most); the
      // context holds the same, so a Date is evaluated as the ISO string it is sent as.
      try {
        json = JSON.parse(JSON.stringify(traits ?? {}));
      } catch (cause) {
        problem ||= `traits that are a JSON object (${(cause as Error).message})`;
      }
      if (!problem && !(isRecord(json) && Object.keys(json).length <= 100)) problem = 'traits that are a JSON object of at most 100 members';
      if (problem) return reportError(new ConfigError(`identify needs ${problem}`));
      if (traits) sessionTraits = json as Traits;
      // Without traits, the same user keeps the attributes, merged overlay included.
      context = { ...context, userId, attributes: traits || userId !== context.userId ? sessionTraits : context.attributes };
      events?.push({ type: 'identify', userId, traits: json as Traits });
      reevaluate();
      if (options.remoteTraits === false) return;
      // No request while offline: the overlay is fetched when the device is back.
      overlayDue = state.activity === 'offline' ? userId : undefined;
      if (!overlayDue) await fetchOverlay(userId);
    },
    async flush() {
      await events?.flush();
    },
    subscribe: listeners.subscribe,
    refresh() {
      dispatch({ type: 'refresh' });
      // Offline, no request is made: nothing to wait for.
      return state.activity === 'offline' ? Promise.resolve() : fetched();
    },
    async close() {
      dispatch({ type: 'close' });
      await events?.close();
    },
  };
  return client as unknown as FlagsClient<D>;
}
