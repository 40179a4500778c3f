/** The notification fan-out on its own: slices, order of jobs, skipped targets, stop. */
import { describe, expect, it } from 'vitest';
import { createFanOut, FAN_OUT_SLICE_MS, type FanOutScheduler } from '../../../reference-server/stream/fan-out';

/** A clock moved by the test, and deferred slices that run only when the test says so. */
function manualScheduler() {
  const deferred: Array<() => void> = [];
  const state = { now: 0 };
  const scheduler: FanOutScheduler = {
    now: () => state.now,
    defer(slice) {
      deferred.push(slice);
      return () => deferred.splice(deferred.indexOf(slice), 1);
    },
  };
  return {
    scheduler,
    state,
    deferred,
    /** Runs the deferred slices one at a time until none is left; returns how many ran. */
    drain(): number {
      let slices = 0;
      for (let slice = deferred.shift(); slice; slice = deferred.shift()) {
        slices += 1;
        slice();
      }
      return slices;
    },
  };
}

const targets = (count: number) => Array.from({ length: count }, (_, i) => i);

describe('createFanOut', () => {
  it('delivers a small job before send returns, in one slice', async () => {
    const manual = manualScheduler();
    const fanOut = createFanOut(manual.scheduler);
    const seen: number[] = [];
    const sent = fanOut.send(targets(10), (target) => seen.push(target) > 0);
    expect(seen).toEqual(targets(10));
    expect(manual.deferred).toHaveLength(0);
    expect(await sent).toBe(10);
    expect(fanOut.pending).toBe(0);
  });

  it('yields once a slice has run its time, and never runs a slice longer than that plus 16 deliveries', async () => {
    const manual = manualScheduler();
    const fanOut = createFanOut(manual.scheduler);
    const perSlice: number[] = [0];
    // Each delivery takes 0.1 ms of the fake clock: 1,000 of them are 100 ms of work.
    const sent = fanOut.send(targets(1000), () => {
      manual.state.now += 0.1;
      perSlice[perSlice.length - 1]! += 1;
      return true;
    });
    expect(perSlice[0]).toBeLessThan(1000);
    while (manual.deferred.length > 0) {
      perSlice.push(0);
      manual.deferred.shift()!();
    }
    expect(await sent).toBe(1000);
    expect(perSlice.reduce((a, b) => a + b)).toBe(1000);
    // A slice looks at the clock every 16 deliveries: at most the slice's time, plus 16 deliveries.
    const mostPerSlice = FAN_OUT_SLICE_MS / 0.1 + 16;
    expect(perSlice.length).toBeGreaterThanOrEqual(1000 / mostPerSlice);
    for (const count of perSlice) expect(count).toBeLessThanOrEqual(mostPerSlice);
  });

  it('runs jobs in the order they were queued: every target hears the first before the second', async () => {
    const manual = manualScheduler();
    const fanOut = createFanOut(manual.scheduler);
    const heard = new Map<number, string[]>();
    const deliver = (message: string) => (target: number) => {
      manual.state.now += 1;
      heard.set(target, [...(heard.get(target) ?? []), message]);
      return true;
    };
    const first = fanOut.send(targets(100), deliver('v2'));
    const second = fanOut.send(targets(100), deliver('v3'));
    expect(fanOut.pending).toBe(2);
    expect(manual.drain()).toBeGreaterThan(1);
    expect(await Promise.all([first, second])).toEqual([100, 100]);
    for (const target of targets(100)) expect(heard.get(target)).toEqual(['v2', 'v3']);
  });

  it('queues a job sent during a delivery behind the one running', async () => {
    const fanOut = createFanOut(manualScheduler().scheduler);
    const order: string[] = [];
    let inner: Promise<number> | undefined;
    const outer = fanOut.send(targets(3), (target) => {
      order.push(`outer ${target}`);
      if (target === 0) inner = fanOut.send([9], () => order.push('inner') > 0);
      return true;
    });
    expect(await outer).toBe(3);
    expect(await inner).toBe(1);
    expect(order).toEqual(['outer 0', 'outer 1', 'outer 2', 'inner']);
  });

  it('counts only the targets delivered to: one gone mid-job, or whose delivery throws, is skipped and the rest go on', async () => {
    const manual = manualScheduler();
    const fanOut = createFanOut(manual.scheduler);
    const gone = new Set<number>();
    const seen: number[] = [];
    const sent = fanOut.send(targets(64), (target) => {
      manual.state.now += 1;
      if (target === 40) throw new Error('socket exploded');
      if (gone.has(target)) return false;
      seen.push(target);
      return true;
    });
    gone.add(50);
    gone.add(3);
    manual.drain();
    expect(await sent).toBe(62);
    expect(seen).not.toContain(50);
    expect(seen).not.toContain(40);
    expect(seen).toContain(3);
    const after = fanOut.send([1], () => true);
    expect(await after).toBe(1);
  });

  it('stop cancels the deferred slice and settles every job with what it delivered; later sends deliver nothing', async () => {
    const manual = manualScheduler();
    const fanOut = createFanOut(manual.scheduler);
    const tick = () => {
      manual.state.now += 1;
      return true;
    };
    const first = fanOut.send(targets(100), tick);
    const second = fanOut.send(targets(100), tick);
    expect(manual.deferred).toHaveLength(1);
    fanOut.stop();
    expect(manual.deferred).toHaveLength(0);
    const [firstCount, secondCount] = await Promise.all([first, second]);
    expect(firstCount).toBeGreaterThan(0);
    expect(firstCount).toBeLessThan(100);
    expect(secondCount).toBe(0);
    let called = false;
    expect(
      await fanOut.send([1], () => {
        called = true;
        return true;
      }),
    ).toBe(0);
    expect(called).toBe(false);
  });
});
