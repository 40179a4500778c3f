import type { HttpClient } from '../http/http-client';
import type { Scheduler } from '../shared/scheduler';
import { SNAPSHOT_ROUTE, snapshotRequest } from '../snapshot/snapshot-request';
import { initialState, type MachineState, type ReadyResult } from './client-state';
import { snapshotOutcomeToEvent } from './fetch-outcome';
import { transition, type Effect, type MachineConfig, type MachineEvent, type TimerName } from './transition';

/** The effects the shell hands on: every one but fetches, timers and ready. */
export type HandedEffect = Exclude<Effect, { type: 'fetch' | 'timer' | 'resolve-ready' }>;

/** What the client does around each step of the machine. */
export interface ShellHooks {
  /** A new state, before its effects run. */
  changed(previous: MachineState): void;
  /** An effect that is not the shell's own (after the shell's part of `stop`). */
  effect(effect: HandedEffect): void;
  /** After the step's effects ran. */
  settled(previous: MachineState): void;
}

/**
 * The fetch machine's shell: it holds the machine's state, feeds it events, and runs the
 * effects that are its own (snapshot fetches, its timers, `ready()`), handing the others on.
 */
export function createMachineShell(config: MachineConfig & { scheduler: Scheduler }, http: HttpClient, hooks: ShellHooks) {
  const { scheduler } = config;
  let state = initialState();
  let snapshotController: AbortController | undefined;
  // The latest snapshot fetch, settled once its outcome is dispatched.
  let fetching = Promise.resolve();
  const timers: Partial<Record<TimerName, unknown>> = {};
  let resolveReady!: (result: ReadyResult) => void;
  const readyPromise = new Promise<ReadyResult>((resolve) => (resolveReady = resolve));

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

  function run(next: Effect): void {
    switch (next.type) {
      case 'fetch': {
        setTimer('poll-due', null);
        if (snapshotController) http.abort(snapshotController);
        const controller = new AbortController();
        snapshotController = controller;
        fetching = http.send(SNAPSHOT_ROUTE, snapshotRequest(state.etag, next.minVersion), controller).then((outcome) => {
          // A newer fetch replaced this one: its answer no longer counts.
          const event = snapshotController === controller && snapshotOutcomeToEvent(outcome, scheduler.now(), scheduler.random());
          if (event) dispatch(event);
        });
        return;
      }
      case 'timer':
        return setTimer(next.timer, next.delay);
      case 'resolve-ready':
        setTimer('ready-timeout', null);
        return resolveReady(next.result);
      case 'stop':
        for (const name of Object.keys(timers) as TimerName[]) setTimer(name, null);
        http.abort();
    }
    hooks.effect(next);
  }

  function dispatch(event: MachineEvent): void {
    const previous = state;
    const step = transition(previous, event, config);
    state = step.state;
    hooks.changed(previous);
    for (const next of step.effects) {
      // A listener or onError that refreshed or closed meanwhile made this step's fetch and
      // timers stale: the newer step armed its own.
      if (state === step.state || (next.type !== 'fetch' && next.type !== 'timer')) run(next);
    }
    hooks.settled(previous);
  }

  return {
    /** The machine's current state. */
    state: () => state,
    /** Paused for the network: no request is made meanwhile. */
    offline: () => state.activity === 'offline',
    /** After `close()`: what reads return stays as it was, so no two readers can disagree. */
    closed: () => state.status.connection === 'stopped',
    dispatch,
    ready: () => readyPromise,
    fetched,
  };
}

export type MachineShell = ReturnType<typeof createMachineShell>;
