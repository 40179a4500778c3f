/** The timer functions a prune loop calls; tests pass fake ones. */
export interface PruneTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

const realTimers: PruneTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

export interface PruneLoopOptions {
  /**
   * One prune: resolves when it is done; a rejection goes to `onError` and the next run
   * retries. `stop` aborts when the loop closes: the prune ends after the statement in hand.
   */
  prune(stop: AbortSignal): Promise<void>;
  /** Time from the end of one prune to the start of the next. */
  everyMs: number;
  onError(error: unknown): void;
  timers?: PruneTimers;
}

/** Runs in the background; nothing awaits it but `close`. */
export interface PruneLoop {
  /** Prunes now, or once more right after the prune in flight. */
  request(): void;
  /** Stops the timer and resolves once the prune in flight (if any) has finished. */
  close(): Promise<void>;
}

type LoopState =
  | { kind: 'waiting'; timer: unknown }
  | { kind: 'pruning'; done: Promise<void>; again: boolean }
  | { kind: 'closed'; done: Promise<void> };

/**
 * Prunes at once, then `everyMs` after each prune ends, and whenever `request` asks: at most
 * one prune is in flight, and requests made during one coalesce into one more.
 */
export function startPruneLoop(options: PruneLoopOptions): PruneLoop {
  const timers = options.timers ?? realTimers;
  const stop = new AbortController();
  let state: LoopState;

  const run = (): void => {
    const pruning: LoopState = { kind: 'pruning', again: false, done: Promise.resolve() };
    state = pruning;
    // A prune that throws before its first await is reported as one that rejects.
    pruning.done = Promise.resolve()
      .then(() => options.prune(stop.signal))
      .catch(options.onError)
      .then(() => {
        if (state !== pruning) return;
        if (pruning.again) run();
        else state = { kind: 'waiting', timer: timers.setTimeout(run, options.everyMs) };
      });
  };
  run();

  return {
    request() {
      if (state.kind === 'pruning') state.again = true;
      else if (state.kind === 'waiting') {
        timers.clearTimeout(state.timer);
        run();
      }
    },
    close() {
      if (state.kind === 'closed') return state.done;
      if (state.kind === 'waiting') timers.clearTimeout(state.timer);
      stop.abort();
      state = { kind: 'closed', done: state.kind === 'pruning' ? state.done : Promise.resolve() };
      return state.done;
    },
  };
}
