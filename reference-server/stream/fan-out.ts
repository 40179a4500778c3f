/**
 * Sends one prepared frame to many streams without holding the event loop: the streams are
 * visited in slices of at most `sliceMs`, and between slices the loop runs everything else
 * (the refetches the first notifications caused, among them). Jobs run one after another in the
 * order they were queued, so two quick publishes reach every stream in the order of their
 * versions.
 */

/** Where the fan-out reads the time and defers its next slice; injected so tests can drive it. */
export interface FanOutScheduler {
  now(): number;
  /** Runs `slice` after the I/O already waiting (setImmediate); returns its cancel function. */
  defer(slice: () => void): () => void;
}

export const nodeFanOutScheduler: FanOutScheduler = {
  now: () => performance.now(),
  defer: (slice) => {
    const immediate = setImmediate(slice);
    return () => clearImmediate(immediate);
  },
};

/** A slice stops once it has run this long: well under the 20 ms a request may wait for the loop. */
export const FAN_OUT_SLICE_MS = 8;

/** How many deliveries pass between two looks at the clock. */
const CLOCK_EVERY = 16;

interface FanOutJob {
  readonly targets: readonly unknown[];
  readonly deliver: (target: never) => boolean;
  readonly finish: (delivered: number) => void;
  next: number;
  delivered: number;
}

export interface FanOut {
  /**
   * Queues a delivery to each of `targets` (taken as they are now: a stream that subscribes
   * later is told by its subscribe answer instead). `deliver` returns whether it sent anything;
   * resolves with how many it did. The first slice runs before this returns when nothing is queued.
   */
  send<T>(targets: readonly T[], deliver: (target: T) => boolean): Promise<number>;
  /** Jobs queued or running. */
  readonly pending: number;
  /** Stops: a deferred slice never runs, and every job waiting resolves with what it delivered. */
  stop(): void;
}

/** A delivery that throws counts as not sent; it must not stall every job queued after it. */
function deliverSafely(job: FanOutJob, target: unknown): boolean {
  try {
    return (job.deliver as (target: unknown) => boolean)(target);
  } catch {
    return false;
  }
}

export function createFanOut(scheduler: FanOutScheduler = nodeFanOutScheduler, sliceMs = FAN_OUT_SLICE_MS): FanOut {
  const queue: FanOutJob[] = [];
  let state: { kind: 'idle' } | { kind: 'running' } | { kind: 'deferred'; cancel: () => void } | { kind: 'stopped' } = { kind: 'idle' };

  function runSlice(): void {
    state = { kind: 'running' };
    const started = scheduler.now();
    let visited = 0;
    for (let job = queue[0]; job !== undefined; job = queue[0]) {
      while (job.next < job.targets.length) {
        if (deliverSafely(job, job.targets[job.next++])) job.delivered += 1;
        visited += 1;
        if (visited % CLOCK_EVERY === 0 && scheduler.now() - started >= sliceMs) {
          state = { kind: 'deferred', cancel: scheduler.defer(runSlice) };
          return;
        }
      }
      queue.shift();
      job.finish(job.delivered);
    }
    state = { kind: 'idle' };
  }

  return {
    send(targets, deliver) {
      return new Promise((resolve) => {
        if (state.kind === 'stopped') {
          resolve(0);
          return;
        }
        queue.push({ targets, deliver, finish: resolve, next: 0, delivered: 0 });
        if (state.kind === 'idle') runSlice();
      });
    },
    get pending() {
      return queue.length;
    },
    stop() {
      if (state.kind === 'deferred') state.cancel();
      state = { kind: 'stopped' };
      for (const job of queue.splice(0)) job.finish(job.delivered);
    },
  };
}
