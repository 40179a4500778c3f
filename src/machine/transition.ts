import { nextDelay, RETRY_POLICY } from '../shared/backoff';
import type { Activity } from '../platform/activity';
import type { ClientStatus, ConnectionState, MachineState, ReadyResult, SnapshotSource } from './client-state';
import type { DiagnosticEvent } from '../events/diagnostic-events';
import type { FlagplaneError } from '../shared/errors';
import type { FlagSnapshot } from '../snapshot/snapshot-types';

/** Everything that can happen to the fetch machine. */
export type MachineEvent =
  /** Once, after bootstrap and a synchronous cache read: arms the ready timeout, applies the activity. */
  | { type: 'start'; activity: Activity }
  | { type: 'snapshot-received'; snapshot: FlagSnapshot; etag: string | null; source: SnapshotSource }
  | { type: 'not-modified' }
  | { type: 'fetch-failed'; error: FlagplaneError; retryAfterMs: number | null; random: number }
  /** The framework the app runs in ended the fetch (Next.js prerendering): no failure, no retry. */
  | { type: 'fetch-interrupted' }
  /** Fired by the timers of the same name (see {@link TimerName}). */
  | { type: 'poll-due' }
  | { type: 'ready-timeout' }
  | { type: 'refresh' }
  | { type: 'stream-notify'; kind: 'updated' | 'resync'; version: number }
  | { type: 'stream-state'; connection: Exclude<ConnectionState, 'polling'> }
  | { type: 'activity'; activity: Activity }
  | { type: 'close' };

/** What the shell must do after a transition. */
export type Effect =
  /**
   * Fetches the snapshot, aborting a fetch in flight and cancelling the `poll-due` timer:
   * every fetch ends in an event that arms the next one. `minVersion` while catching up.
   */
  | { type: 'fetch'; minVersion: number | null }
  /** Arms the named timer (replacing it), or clears it when `delay` is `null`. */
  | { type: 'timer'; timer: TimerName; delay: number | null }
  /** Also clears the `ready-timeout` timer. */
  | { type: 'resolve-ready'; result: ReadyResult }
  | { type: 'report'; error: FlagplaneError }
  | { type: 'persist'; snapshot: FlagSnapshot; etag: string | null }
  /** A diagnostic event for the event buffer. */
  | Extract<DiagnosticEvent, { type: 'version_skew' }>
  | { type: 'stop' };

/**
 * A timer is named after the event it dispatches when it fires. One `poll-due` timer
 * serves polls, retries and catch-ups: whichever is due next.
 */
export type TimerName = 'poll-due' | 'ready-timeout';

export interface MachineConfig {
  /** 0 = fetch once (failures are still retried until one succeeds). */
  pollInterval: number;
  readyTimeout: number;
}

export interface Transition {
  state: MachineState;
  effects: Effect[];
}

/** Delays before refetching when an answer is older than the announced version (protocol.md §8). */
export const CATCH_UP_DELAYS_MS = [250, 500, 1000];

type Draft<T> = { -readonly [K in keyof T]: T[K] };

/** The transition in progress: the next state and status (drafts of the current ones), and the effects so far. */
interface Step {
  readonly next: Draft<MachineState>;
  readonly status: Draft<ClientStatus>;
  readonly effects: Effect[];
  /** The version of the snapshot held before the event, -1 without one. */
  readonly held: number;
  resolveReady(result: ReadyResult): void;
  fetch(): void;
  arm(timer: TimerName, delay: number | null): void;
}

/**
 * The fetch machine: a pure function of state and event, returning the next state and
 * the effects the shell runs. Time, randomness and I/O arrive as events. `state` is never
 * mutated; the next status is a new object only when one of its fields changed.
 */
export function transition(state: MachineState, event: MachineEvent, config: MachineConfig): Transition {
  const effects: Effect[] = [];
  const next: Draft<MachineState> = { ...state };
  const status: Draft<ClientStatus> = { ...state.status };
  if (status.connection === 'stopped') return { state, effects };
  const initializing = status.status === 'initializing';
  const step: Step = {
    next,
    status,
    effects,
    // The status always carries the version of the snapshot held.
    held: status.version ?? -1,
    resolveReady: (result) => initializing && effects.push({ type: 'resolve-ready', result }),
    fetch() {
      next.fetch = 'in-flight';
      effects.push({ type: 'fetch', minVersion: next.wanted });
    },
    arm: (timer, delay) => effects.push({ type: 'timer', timer, delay }),
  };

  switch (event.type) {
    case 'start':
      if (initializing) step.arm('ready-timeout', config.readyTimeout);
    // Falls through: the machine starts paused (`offline`), so the platform's activity applies.
    case 'activity':
      if (event.activity === next.activity) break;
      next.activity = event.activity;
      // Back: refresh at once rather than wait out a poll interval of stale flags.
      if (event.activity === 'active') {
        if (next.fetch !== 'in-flight') step.fetch();
        // Paused: no poll — but a Retry-After wait runs out, so stream notices may fetch after it.
      } else if (next.fetch !== 'held') step.arm('poll-due', null);
      break;
    case 'not-modified':
    case 'snapshot-received':
      // A 304 is the held snapshot, received again from the network.
      received(step, event.type === 'not-modified' ? { ...next, source: 'network' } : event, config);
      break;
    case 'fetch-failed':
      failed(step, event, config);
      break;
    case 'poll-due':
      // Paused: the next fetch happens when the page is visible or the device online again.
      if (next.fetch !== 'in-flight' && next.activity === 'active') step.fetch();
      else if (next.fetch === 'held') next.fetch = 'idle';
      break;
    case 'refresh':
      // No request while offline: coming back online fetches.
      if (next.activity !== 'offline') step.fetch();
      break;
    case 'stream-notify':
      if (next.activity === 'offline' || (event.kind === 'updated' && step.held >= event.version)) break;
      next.wanted = Math.max(next.wanted ?? event.version, event.version);
      // Coalescing: while a fetch is in flight, a burst of notifications only raises the target.
      if (next.fetch === 'idle') {
        next.catchUps = 0;
        step.fetch();
      }
      break;
    case 'stream-state':
      // A stream that stopped for good (bad or revoked key) leaves polling on (protocol.md §6.4).
      status.connection = event.connection === 'stopped' ? 'polling' : event.connection;
      break;
    case 'ready-timeout':
      if (!initializing) break;
      status.status = 'failed';
      step.resolveReady({ status: 'timeout', source: null });
      break;
    case 'close':
      status.connection = 'stopped';
      effects.push({ type: 'stop' });
      step.resolveReady({ status: 'closed', source: null });
      break;
    default: // 'fetch-interrupted', which the browser build never sees
      if (typeof __FLAGPLANE_BROWSER__ == 'undefined') interrupted(step, config);
  }
  const changed = (Object.keys(status) as Array<keyof ClientStatus>).some((key) => status[key] !== state.status[key]);
  next.status = changed ? status : state.status;
  return { state: next, effects };
}

/** A snapshot from `source` (a 304 brings the one held, from the network). */
function received(
  { next, status, effects, held, resolveReady, arm }: Step,
  { snapshot, etag, source }: { snapshot: FlagSnapshot | null; etag: string | null; source: SnapshotSource },
  config: MachineConfig,
): void {
  const network = source === 'network';
  if (network) {
    next.failures = 0;
    next.fetch = 'idle';
    status.error = null;
  }
  // protocol.md §8.1: an older body is ignored; the same version keeps the snapshot object.
  if (snapshot && snapshot.version >= held) {
    const newer = snapshot.version > held;
    if (newer) {
      if (held >= 0 && snapshot.version > held + 1) {
        effects.push({ type: 'version_skew', previousVersion: held, currentVersion: snapshot.version });
      }
      next.snapshot = snapshot;
      if (network) effects.push({ type: 'persist', snapshot, etag });
    }
    if (newer || etag) next.etag = etag;
    // From another source, the same version changes nothing: its source stays.
    if (newer || network) {
      resolveReady({ status: 'ready', source });
      status.status = 'ready';
      status.source = source;
      status.version = snapshot.version;
    }
  }
  if (!network) return;
  // Catching up: refetch until the answer reaches `wanted`, a few times, then give up.
  const catchUpDelay = (status.version ?? -1) < (next.wanted ?? -1) && CATCH_UP_DELAYS_MS[next.catchUps++];
  if (!catchUpDelay) stopCatchingUp(next);
  const delay = catchUpDelay || config.pollInterval;
  if (delay) arm('poll-due', delay);
}

/** A failed fetch: reported, and retried with backoff (or after the server's Retry-After). */
function failed({ next, status, effects, arm }: Step, event: Extract<MachineEvent, { type: 'fetch-failed' }>, config: MachineConfig): void {
  next.failures++;
  next.fetch = event.retryAfterMs ? 'held' : 'idle';
  // A failure ends catching up; the retry is a plain poll.
  stopCatchingUp(next);
  status.error = event.error;
  // Capped by the poll interval too: a retry never waits longer than the next poll would.
  const max = Math.min(config.pollInterval || RETRY_POLICY.max, RETRY_POLICY.max);
  const backoff = nextDelay(next.failures, { ...RETRY_POLICY, max, random: event.random });
  effects.push({ type: 'report', error: event.error });
  arm('poll-due', Math.max(backoff, event.retryAfterMs ?? 0));
}

/**
 * A fetch the app's framework ended: not a failure (no report, no backoff). The render that
 * wanted the flags is gone, and waiting out `readyTimeout` would stall the next one.
 */
function interrupted({ next, resolveReady, arm }: Step, config: MachineConfig): void {
  next.fetch = 'idle';
  resolveReady({ status: 'interrupted', source: null });
  if (config.pollInterval) arm('poll-due', config.pollInterval);
}

function stopCatchingUp(next: Draft<MachineState>): void {
  next.wanted = null;
  next.catchUps = 0;
}
