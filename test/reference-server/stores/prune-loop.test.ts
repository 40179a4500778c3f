// The background loop behind every Postgres prune: one in flight, on a timer, stopped on close.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPruneLoop } from '../../../reference-server/stores/prune-loop';

/** A prune whose runs the test finishes by hand; `started` counts them, `signals` keeps each run's stop signal. */
function manualPrune() {
  const pending: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  const signals: AbortSignal[] = [];
  let running = 0;
  let most = 0;
  return {
    signals,
    get started() {
      return signals.length;
    },
    get mostAtOnce() {
      return most;
    },
    prune(stop: AbortSignal) {
      signals.push(stop);
      running += 1;
      most = Math.max(most, running);
      return new Promise<void>((resolve, reject) => pending.push({ resolve, reject })).finally(() => {
        running -= 1;
      });
    },
    async finish(error?: unknown) {
      const run = pending.shift();
      if (!run) throw new Error('no prune is running');
      if (error === undefined) run.resolve();
      else run.reject(error);
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

describe('prune loop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('prunes at start, then everyMs after each prune ends, never two at once', async () => {
    const runs = manualPrune();
    const loop = startPruneLoop({ prune: runs.prune, everyMs: 1000, onError: () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    expect(runs.started).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs.started).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    await runs.finish();
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(runs.started).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs.started).toBe(2);
    expect(runs.mostAtOnce).toBe(1);
    await runs.finish();
    await loop.close();
  });

  it('runs one more prune for every request made while one is in flight, and at once when idle', async () => {
    const runs = manualPrune();
    const loop = startPruneLoop({ prune: runs.prune, everyMs: 60_000, onError: () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    loop.request();
    loop.request();
    loop.request();
    await runs.finish();
    expect(runs.started).toBe(2);
    await runs.finish();
    expect(runs.started).toBe(2);
    loop.request();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs.started).toBe(3);
    expect(runs.mostAtOnce).toBe(1);
    await runs.finish();
    expect(vi.getTimerCount()).toBe(1);
    await loop.close();
  });

  it('reports a failed prune, and a thrown one, to onError and retries at the next tick', async () => {
    const errors: unknown[] = [];
    const runs = manualPrune();
    let throwNext = false;
    const loop = startPruneLoop({
      prune: (stop) => {
        if (throwNext) throw new Error('thrown');
        return runs.prune(stop);
      },
      everyMs: 1000,
      onError: (error) => errors.push(error),
    });
    await vi.advanceTimersByTimeAsync(0);
    await runs.finish(new Error('engine down'));
    expect(errors).toEqual([new Error('engine down')]);
    throwNext = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(errors).toEqual([new Error('engine down'), new Error('thrown')]);
    throwNext = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs.started).toBe(2);
    await runs.finish();
    expect(errors).toHaveLength(2);
    await loop.close();
  });

  it('leaves no timer after close, waiting for the prune in flight, which it asks to stop', async () => {
    const runs = manualPrune();
    const loop = startPruneLoop({ prune: runs.prune, everyMs: 1000, onError: () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    let closed = false;
    const closing = loop.close().then(() => (closed = true));
    expect(runs.signals[0]?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toBe(false);
    await runs.finish();
    await closing;
    expect(vi.getTimerCount()).toBe(0);
    loop.request();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs.started).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('clears its timer when closed between two prunes', async () => {
    const runs = manualPrune();
    const loop = startPruneLoop({ prune: runs.prune, everyMs: 1000, onError: () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    await runs.finish();
    expect(vi.getTimerCount()).toBe(1);
    await loop.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs.started).toBe(1);
  });
});
