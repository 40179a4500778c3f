import { nextDelay } from './backoff';
import type { Activity, ClientStatus, ConnectionState, MachineState, ReadyResult, SnapshotSource } from './client-state';
import type { FlagplaneError } from './errors';
import type { FlagSnapshot } from './snapshot-types';

/** Everything that can happen to the fetch machine. */
export type MachineEvent =
  | { type: 'start' }
  | { type: 'snapshot-received'; snapshot: FlagSnapshot; etag: string | null; source: SnapshotSource }
  | { type: 'not-modified' }
  | { type: 'fetch-failed'; error: FlagplaneError; retryAfterMs: number | null; random: number }
  | { type: 'poll-due' }
  | { type: 'catch-up-due' }
  | { type: 'refresh' }
  | { type: 'stream-notify'; kind: 'updated' | 'resync'; version: number }
  | { type: 'stream-state'; connection: Exclude<ConnectionState, 'polling'> }
  | { type: 'activity'; activity: Activity }
  | { type: 'ready-timeout' }
  | { type: 'close' };

/** What the shell must do after a transition. */
export type Effect =
  /** Fetches the snapshot, aborting a fetch in flight; `minVersion` while catching up. */
  | { type: 'fetch'; minVersion: number | null }
  /** Arms the named timer (replacing it), or clears it when `delay` is `null`. */
  | { type: 'timer'; timer: TimerName; delay: number | null }
  | { type: 'resolve-ready'; result: ReadyResult }
  | { type: 'report'; error: FlagplaneError }
  | { type: 'persist'; snapshot: FlagSnapshot; etag: string | null }
  | { type: 'stop' };

export type TimerName = 'poll' | 'ready' | 'catch-up';

export interface MachineConfig {
  /** 0 = fetch once (failures are still retried until one succeeds). */
  pollInterval: number;
  readyTimeout: number;
}

export interface Transition {
  state: MachineState;
  effects: Effect[];
}

/** First retry after a failed fetch, in ms. */
export const RETRY_BASE_MS = 1000;
/** Cap of the retry delay when polling is off. */
export const RETRY_MAX_MS = 60_000;
export const RETRY_JITTER = 0.2;
/** Delays before refetching when an answer is older than the announced version (protocol.md §8). */
export const CATCH_UP_DELAYS_MS = [250, 500, 1000];

const same = (state: MachineState): Transition => ({ state, effects: [] });

function withStatus(state: MachineState, patch: Partial<ClientStatus>): MachineState {
  const next = { ...state.status, ...patch };
  const changed = (Object.keys(patch) as Array<keyof ClientStatus>).some((key) => next[key] !== state.status[key]);
  return changed ? { ...state, status: next } : state;
}

function becomeReady(state: MachineState, source: SnapshotSource): Transition {
  const wasWaiting = state.status.status === 'initializing';
  const next = withStatus(state, { status: 'ready', source, version: state.snapshot?.version ?? null });
  return { state: next, effects: wasWaiting ? [{ type: 'resolve-ready', result: { status: 'ready', source } }] : [] };
}

function afterSuccess(state: MachineState, config: MachineConfig): Effect[] {
  return state.status.connection !== 'stopped' && config.pollInterval > 0
    ? [{ type: 'timer', timer: 'poll', delay: config.pollInterval }]
    : [];
}

function receive(state: MachineState, event: Extract<MachineEvent, { type: 'snapshot-received' }>, config: MachineConfig): Transition {
  const fromNetwork = event.source === 'network';
  const base = fromNetwork ? withStatus({ ...state, failures: 0, fetch: 'idle' }, { error: null }) : state;
  const polls = fromNetwork ? afterSuccess(base, config) : [];
  const current = state.snapshot;
  // Seed §4.5 and §9: a body older than the local snapshot is ignored.
  if (current && event.snapshot.version < current.version) return { state: base, effects: polls };
  if (current && event.snapshot.version === current.version) {
    const kept = event.etag && event.etag !== base.etag ? { ...base, etag: event.etag } : base;
    const ready = becomeReady(kept, fromNetwork ? 'network' : (state.status.source ?? event.source));
    return { state: ready.state, effects: [...ready.effects, ...polls] };
  }
  const ready = becomeReady({ ...base, snapshot: event.snapshot, etag: event.etag }, event.source);
  const persist: Effect[] = fromNetwork ? [{ type: 'persist', snapshot: event.snapshot, etag: event.etag }] : [];
  return { state: ready.state, effects: [...ready.effects, ...persist, ...polls] };
}

function fail(state: MachineState, event: Extract<MachineEvent, { type: 'fetch-failed' }>, config: MachineConfig): Transition {
  const failures = state.failures + 1;
  const max = config.pollInterval > 0 ? Math.min(config.pollInterval, RETRY_MAX_MS) : RETRY_MAX_MS;
  const backoff = nextDelay(failures, { base: RETRY_BASE_MS, max, jitter: RETRY_JITTER, random: event.random });
  const delay = Math.max(backoff, event.retryAfterMs ?? 0);
  // A failure ends catching up; the retry is a plain poll.
  const next = withStatus({ ...state, failures, fetch: 'idle', wanted: null, catchUps: 0 }, { error: event.error });
  return { state: next, effects: [{ type: 'report', error: event.error }, { type: 'timer', timer: 'poll', delay }] };
}

const fetchEffect = (state: MachineState): Effect => ({ type: 'fetch', minVersion: state.wanted });

function changeActivity(state: MachineState, activity: Activity): Transition {
  if (activity === state.activity) return same(state);
  const next: MachineState = { ...state, activity };
  if (activity !== 'active') return { state: next, effects: [{ type: 'timer', timer: 'poll', delay: null }] };
  // Back: refresh at once rather than wait out a poll interval of stale flags.
  if (state.fetch === 'in-flight') return { state: next, effects: [] };
  return { state: { ...next, fetch: 'in-flight' }, effects: [{ type: 'timer', timer: 'poll', delay: null }, fetchEffect(next)] };
}

function notified(state: MachineState, event: Extract<MachineEvent, { type: 'stream-notify' }>): Transition {
  const held = state.snapshot?.version ?? -1;
  if (event.kind === 'updated' && held >= event.version) return same(state);
  const wanted = Math.max(state.wanted ?? event.version, event.version);
  // Coalescing: while a fetch is in flight, a burst of notifications only raises the target.
  if (state.fetch === 'in-flight') return { state: { ...state, wanted }, effects: [] };
  const next: MachineState = { ...state, wanted, catchUps: 0, fetch: 'in-flight' };
  return { state: next, effects: [{ type: 'timer', timer: 'catch-up', delay: null }, fetchEffect(next)] };
}

/** After a successful answer: done when it reached `wanted`, else retry a few times, then give up. */
function catchUp({ state, effects }: Transition): Transition {
  if (state.wanted === null) return { state, effects };
  if ((state.snapshot?.version ?? -1) >= state.wanted || state.catchUps >= CATCH_UP_DELAYS_MS.length) {
    return { state: { ...state, wanted: null, catchUps: 0 }, effects };
  }
  const delay = CATCH_UP_DELAYS_MS[state.catchUps]!;
  return { state: { ...state, catchUps: state.catchUps + 1 }, effects: [...effects, { type: 'timer', timer: 'catch-up', delay }] };
}

/**
 * The fetch machine: a pure function of state and event, returning the next state and
 * the effects the shell runs. Time, randomness and I/O arrive as events.
 */
export function transition(state: MachineState, event: MachineEvent, config: MachineConfig): Transition {
  if (state.status.connection === 'stopped') return same(state);
  switch (event.type) {
    case 'start': {
      const active = state.activity === 'active';
      const effects: Effect[] = active ? [fetchEffect(state)] : [];
      if (state.status.status === 'initializing') effects.push({ type: 'timer', timer: 'ready', delay: config.readyTimeout });
      return { state: active ? { ...state, fetch: 'in-flight' } : state, effects };
    }
    case 'snapshot-received':
      return event.source === 'network' ? catchUp(receive(state, event, config)) : receive(state, event, config);
    case 'not-modified': {
      const settled = withStatus({ ...state, failures: 0, fetch: 'idle' }, { error: null });
      const ready = state.snapshot ? becomeReady(settled, 'network') : { state: settled, effects: [] };
      return catchUp({ state: ready.state, effects: [...ready.effects, ...afterSuccess(settled, config)] });
    }
    case 'fetch-failed':
      return fail(state, event, config);
    case 'poll-due':
    case 'catch-up-due':
      // Paused: the next fetch happens when the page is visible or the device online again.
      if (state.fetch === 'in-flight' || state.activity !== 'active') return same(state);
      return { state: { ...state, fetch: 'in-flight' }, effects: [fetchEffect(state)] };
    case 'refresh':
      return { state: { ...state, fetch: 'in-flight' }, effects: [{ type: 'timer', timer: 'poll', delay: null }, fetchEffect(state)] };
    case 'stream-notify':
      return state.activity === 'offline' ? same(state) : notified(state, event);
    case 'activity':
      return changeActivity(state, event.activity);
    case 'stream-state':
      // A stream that stopped for good (bad or revoked key) leaves polling on (protocol.md §6.4).
      return { state: withStatus(state, { connection: event.connection === 'stopped' ? 'polling' : event.connection }), effects: [] };
    case 'ready-timeout':
      if (state.status.status !== 'initializing') return same(state);
      return {
        state: withStatus(state, { status: 'failed' }),
        effects: [{ type: 'resolve-ready', result: { status: 'timeout', source: null } }],
      };
    case 'close': {
      const effects: Effect[] = [{ type: 'stop' }];
      if (state.status.status === 'initializing') {
        effects.push({ type: 'resolve-ready', result: { status: 'closed', source: null } });
      }
      return { state: withStatus({ ...state, fetch: 'idle' }, { connection: 'stopped' }), effects };
    }
  }
}
