import type { ChangeEvent, FlagsClient } from './client-types';
import { initialState, type MachineState, type ReadyResult } from './client-state';
import { ConfigError, FlagplaneError } from './errors';
import type { EvaluationContext, EvaluationDetails } from './evaluation-types';
import { createEventSender } from './event-sender';
import { generateId, loadAnonymousId } from './anonymous-id';
import { browserStorage } from './default-storage';
import { createOverlayFetcher, mergeTraits, type Traits } from './identity';
import { createTabSync, onPageHide } from './platform/index';
import { watchActivity } from './activity';
import { fetchTransport } from './fetch-transport';
import { fingerprint } from './fingerprint';
import { evaluateAll, resolveRead, type EvaluatedFlags } from './flag-values';
import { createHttpClient } from './http-client';
import { resolveOptions, type ClientOptions, type FlagDefaults } from './options';
import { defaultScheduler } from './scheduler';
import { readCachedSnapshot, writeCachedSnapshot } from './snapshot-cache';
import { checkSnapshot } from './snapshot-parse';
import { SNAPSHOT_ROUTE, snapshotOutcomeToEvent, snapshotRequest } from './snapshot-fetch';
import type { JsonValue } from './snapshot-types';
import { buildOverrides, changedOverrides, type Overrides } from './overrides';
import { ReadTracker } from './read-tracker';
import { Subscribable } from './subscribable';
import { createStreamLink } from './stream-link';
import { transition, type Effect, type MachineEvent, type TimerName } from './transition';

const TIMER_EVENTS: Record<TimerName, MachineEvent> = {
  poll: { type: 'poll-due' },
  ready: { type: 'ready-timeout' },
  'catch-up': { type: 'catch-up-due' },
};

/**
 * Creates a feature-flag client and starts fetching. Throws a `ConfigError` for invalid
 * options — the only throw in the SDK; everything after reports through `onError`.
 */
export function createClient<D extends FlagDefaults = FlagDefaults>(options: ClientOptions<D>): FlagsClient<D> {
  const config = resolveOptions(options as ClientOptions);
  const scheduler = options.scheduler ?? defaultScheduler;
  const http = createHttpClient(options.transport ?? fetchTransport, scheduler, config.requestTimeout);
  // No prototype: a key such as `__proto__` or `toString` must not read Object.prototype.
  const defaults: Record<string, JsonValue | undefined> = Object.assign(Object.create(null), options.defaults);
  let context: EvaluationContext = options.context ?? {};
  let overrides: Overrides = new Map();
  let sessionTraits: Traits = (context.attributes ?? {}) as Traits;
  const events =
    options.events === false
      ? null
      : createEventSender({
          ...config,
          // Its own HTTP client: close() aborts polling but still sends the last flush.
          http: createHttpClient(options.transport ?? fetchTransport, scheduler, config.requestTimeout),
          scheduler,
          report: (error) => reportError(error, false),
          newWindow: () => tracker?.newWindow(),
        });
  const tracker = events && new ReadTracker((event) => events.push(event));
  const storage = options.cache ?? (options.persist === false ? undefined : browserStorage());
  let anonymousId = options.anonymousId ?? generateId(scheduler.random);
  const bucketingKey = () => context.userId ?? anonymousId;
  const keyFingerprint = fingerprint(config.sdkKey);
  const storageKey = config.storageKey ?? `flagplane:snapshot:${keyFingerprint}`;

  let state: MachineState = initialState();
  let flags: EvaluatedFlags = new Map();
  let allValues: Record<string, JsonValue> | null = null;
  let snapshotController: AbortController | null = null;
  let fetchWaiters: Array<() => void> = [];
  const timers: Record<TimerName, unknown> = { poll: undefined, ready: undefined, 'catch-up': undefined };
  let resolveReady!: (result: ReadyResult) => void;
  const readyPromise = new Promise<ReadyResult>((resolve) => (resolveReady = resolve));

  /** `buffer: false` for the event sender's own errors: buffered, they would feed themselves. */
  const reportError = (error: FlagplaneError, buffer = true) => {
    if (buffer) {
      events?.push({ type: 'error', message: error.message.split(config.sdkKey).join('[sdk key]').slice(0, 2048) });
    }
    try {
      options.onError?.(error);
    } catch {
      // The app's own error handler failed; there is nowhere left to report it.
    }
  };
  const listeners = new Subscribable<ChangeEvent>((cause) =>
    reportError(new FlagplaneError('listener', `a subscribe listener threw: ${(cause as Error)?.message ?? cause}`, cause)),
  );

  const clearTimer = (name: TimerName) => {
    if (timers[name] !== undefined) scheduler.clearTimeout(timers[name]);
    timers[name] = undefined;
  };
  const setTimer = (name: TimerName, delay: number | null) => {
    clearTimer(name);
    if (delay === null) return;
    timers[name] = scheduler.setTimeout(() => {
      timers[name] = undefined;
      dispatch(TIMER_EVENTS[name]);
    }, delay);
  };
  const settleFetchWaiters = () => {
    const waiters = fetchWaiters;
    fetchWaiters = [];
    for (const resolve of waiters) resolve();
  };

  function startFetch(minVersion: number | null): void {
    snapshotController?.abort();
    const controller = new AbortController();
    snapshotController = controller;
    const request = snapshotRequest(config.baseUrl, config.sdkKey, state.etag, minVersion ?? undefined);
    void http.send(request, SNAPSHOT_ROUTE, controller).then((outcome) => {
      if (snapshotController !== controller) return;
      snapshotController = null;
      const event = snapshotOutcomeToEvent(outcome, scheduler.now(), scheduler.random());
      if (event) dispatch(event);
      settleFetchWaiters();
    });
  }

  function run(effect: Effect): void {
    switch (effect.type) {
      case 'fetch':
        return startFetch(effect.minVersion);
      case 'timer':
        return setTimer(effect.timer, effect.delay);
      case 'resolve-ready':
        clearTimer('ready');
        return resolveReady(effect.result);
      case 'report':
        return reportError(effect.error);
      case 'persist':
        if (storage) writeCachedSnapshot(storage, storageKey, keyFingerprint, effect, reportError);
        tabs?.publish(effect);
        return;
      case 'stop':
        for (const name of Object.keys(timers) as TimerName[]) clearTimer(name);
        stream.disconnect();
        activity.stop();
        tabs?.close();
        snapshotController = null;
        http.abortAll();
        settleFetchWaiters();
        return;
    }
  }

  function dispatch(event: MachineEvent): void {
    const previous = state;
    const next = transition(previous, event, config);
    state = next.state;
    const { snapshot } = state;
    if (snapshot && previous.snapshot && snapshot !== previous.snapshot && snapshot.version !== previous.snapshot.version + 1) {
      events?.push({ type: 'version_skew', previousVersion: previous.snapshot.version, currentVersion: snapshot.version });
    }
    const changed = snapshot !== previous.snapshot ? reevaluate() : new Set<string>();
    if (changed.size > 0 || state.status !== previous.status) listeners.emit({ changed, status: state.status });
    for (const effect of next.effects) run(effect);
  }

  function reevaluate(): ReadonlySet<string> {
    const evaluated = evaluateAll(state.snapshot, context, bucketingKey(), flags);
    flags = evaluated.flags;
    allValues = null;
    return evaluated.changed;
  }

  function notify(changed: ReadonlySet<string>): void {
    allValues = null;
    if (changed.size > 0) listeners.emit({ changed, status: state.status });
  }

  function details(key: string, fallback: JsonValue | undefined): EvaluationDetails<JsonValue | undefined> {
    const value = fallback === undefined ? defaults[key] : fallback;
    try {
      const result = overrides.get(key) ?? resolveRead(key, flags.get(key), state.snapshot, value);
      tracker?.track(result as EvaluationDetails, bucketingKey());
      return result;
    } catch {
      return { key, value, reason: 'ERROR', variation: null, version: null, errorCode: 'GENERAL' };
    }
  }
  const read = (key: string, fallback: JsonValue | undefined) => details(key, fallback).value;

  if (!options.anonymousId) {
    loadAnonymousId(storage, options.anonymousStorageKey ?? 'svc:anonymousId', anonymousId, (stored) => {
      anonymousId = stored;
      if (!context.userId) notify(reevaluate());
    }, reportError);
  }
  const stopPageHide = events ? onPageHide(() => void events.flush(true)) : () => undefined;

  const overlays = createOverlayFetcher({
    ...config,
    http,
    currentUser: () => context.userId,
    apply: (traits) => {
      context = { ...context, attributes: mergeTraits(traits, sessionTraits) };
      notify(reevaluate());
    },
    report: reportError,
  });

  if (options.bootstrap) {
    const checked = checkSnapshot(options.bootstrap, 'bootstrap');
    if (checked.kind === 'ok') dispatch({ type: 'snapshot-received', snapshot: checked.snapshot, etag: null, source: 'bootstrap' });
    else reportError(checked.error);
  }
  if (storage) {
    readCachedSnapshot(storage, storageKey, keyFingerprint, (cached) => {
      if (cached.kind === 'error') reportError(cached.error);
      else if (cached.kind === 'hit') dispatch({ type: 'snapshot-received', snapshot: cached.snapshot, etag: cached.etag, source: 'cache' });
    });
  }
  const stream = createStreamLink({
    ...config,
    transport: options.streamTransport,
    scheduler,
    lastKnownVersion: () => state.snapshot?.version ?? null,
    dispatch,
    report: reportError,
  });
  const activity = watchActivity(options, () => {
    dispatch({ type: 'activity', activity: activity.current() });
    // Reconnects wait for the network: no socket while offline.
    if (state.activity === 'offline') {
      stream.disconnect();
      if (stream.configured) dispatch({ type: 'stream-state', connection: 'reconnecting' });
    } else if (state.status.connection !== 'stopped') stream.connect();
  });
  const tabs =
    options.syncTabs === false
      ? null
      : createTabSync(`flagplane:${keyFingerprint}`, (message) => dispatch({ type: 'snapshot-received', ...message, source: 'tab' }));
  dispatch({ type: 'activity', activity: activity.current() });
  dispatch({ type: 'start' });
  if (state.activity !== 'offline') stream.connect();

  const client: FlagsClient<FlagDefaults> = {
    ready: () => readyPromise,
    get: read as FlagsClient['get'],
    getDetails: details as FlagsClient['getDetails'],
    getAll() {
      if (allValues) return allValues;
      const values: Record<string, JsonValue> = {};
      for (const [key, value] of Object.entries(defaults)) if (value !== undefined) values[key] = value;
      for (const key of new Set([...flags.keys(), ...overrides.keys()])) {
        const value = (overrides.get(key) ?? resolveRead(key, flags.get(key), state.snapshot, defaults[key])).value;
        if (value !== undefined) values[key] = value;
      }
      return (allValues = values);
    },
    getStatus: () => state.status,
    getContext: () => context,
    setContext(next) {
      context = next ?? {};
      sessionTraits = (context.attributes ?? {}) as Traits;
      notify(reevaluate());
    },
    setOverrides(values) {
      const next = buildOverrides(values ?? {});
      const changed = changedOverrides(overrides, next);
      overrides = next;
      notify(changed);
    },
    identify(userId, traits) {
      if (typeof userId !== 'string' || userId.length === 0 || userId.length > 256) {
        reportError(new ConfigError(`identify needs a userId of 1 to 256 characters, got ${JSON.stringify(userId)}`));
        return Promise.resolve();
      }
      if (traits) sessionTraits = { ...traits };
      context = { ...context, userId, attributes: sessionTraits };
      events?.push({ type: 'identify', userId, traits: traits ? sessionTraits : {} });
      notify(reevaluate());
      return options.remoteTraits === false || state.status.connection === 'stopped' ? Promise.resolve() : overlays.fetch(userId);
    },
    flush: () => (events ? events.flush() : Promise.resolve()),
    subscribe: (listener) => listeners.subscribe(listener),
    refresh() {
      if (state.status.connection === 'stopped') return Promise.resolve();
      const done = new Promise<void>((resolve) => fetchWaiters.push(resolve));
      dispatch({ type: 'refresh' });
      return done;
    },
    async close() {
      dispatch({ type: 'close' });
      overlays.abort();
      stopPageHide();
      listeners.clear();
      await events?.close();
    },
  };
  return client as unknown as FlagsClient<D>;
}
