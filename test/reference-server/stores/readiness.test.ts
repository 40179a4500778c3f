// The pieces under /readyz and the instance heartbeat, with time and engines faked.
import { describe, expect, it, vi } from 'vitest';
import { startBeats } from '../../../reference-server/stores/instance-registry';
import type { Schedule } from '../../../reference-server/stores/readiness';
import { probeEngines } from '../../../reference-server/stores/readiness';
import { singleFlight } from '../../../reference-server/stores/single-flight';

/** A schedule a test advances by hand: `fire()` runs every pending timer. */
function manualSchedule() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let ids = 0;
  const schedule: Schedule = (callback, ms) => {
    const id = ++ids;
    pending.set(id, { callback, ms });
    return () => void pending.delete(id);
  };
  return {
    schedule,
    pending,
    fire() {
      const due = [...pending.entries()];
      pending.clear();
      for (const [, { callback }] of due) callback();
    },
  };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('singleFlight', () => {
  it('gives concurrent callers the one call in flight, and calls again once it settled', async () => {
    const calls: Array<ReturnType<typeof deferred>> = [];
    const shared = singleFlight(() => {
      const call = deferred();
      calls.push(call);
      return call.promise;
    });
    const first = [shared(), shared(), shared()];
    expect(calls).toHaveLength(1);
    expect(first[1]).toBe(first[0]);
    calls[0]!.reject(new Error('down'));
    await Promise.all(first.map((p) => expect(p).rejects.toThrow('down')));
    const again = shared();
    expect(calls).toHaveLength(2);
    calls[1]!.resolve();
    await again;
  });
});

describe('probeEngines', () => {
  it('reports each engine up, refused or timed out, answering by the timeout and clearing its timers', async () => {
    const time = manualSchedule();
    let clock = 100;
    const hanging = deferred();
    const states = probeEngines(
      [
        { engine: 'redis', ping: () => hanging.promise },
        { engine: 'postgres', ping: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) },
      ],
      1000,
      time.schedule,
      () => clock,
    );
    await flush();
    expect([...time.pending.values()].map(({ ms }) => ms)).toEqual([1000]);
    clock = 1100;
    time.fire();
    expect(await states).toEqual({
      redis: { status: 'down', reason: 'timeout', message: 'no answer within 1000 ms' },
      postgres: { status: 'down', reason: 'refused', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
    });
    hanging.resolve();
  });

  it('reports the time an engine took to answer, and cancels its timer', async () => {
    const time = manualSchedule();
    let clock = 0;
    const answer = deferred();
    const states = probeEngines([{ engine: 'redis', ping: () => answer.promise }], 1000, time.schedule, () => clock);
    clock = 7.4;
    answer.resolve();
    expect(await states).toEqual({ redis: { status: 'up', ms: 7 } });
    expect(time.pending.size).toBe(0);
  });

  it('answers at once with no engine to probe (memory)', async () => {
    expect(await probeEngines([], 1000, manualSchedule().schedule)).toEqual({});
  });
});

describe('startBeats', () => {
  it('beats every interval, one at a time: the next is scheduled when the previous settled', async () => {
    const time = manualSchedule();
    const beats: Array<ReturnType<typeof deferred>> = [];
    const onError = vi.fn();
    startBeats(() => {
      const beat = deferred();
      beats.push(beat);
      return beat.promise;
    }, 500, time.schedule, onError);
    expect([...time.pending.values()].map(({ ms }) => ms)).toEqual([500]);
    time.fire();
    expect(beats).toHaveLength(1);
    expect(time.pending.size).toBe(0);
    beats[0]!.reject(new Error('redis down'));
    await flush();
    expect(onError).toHaveBeenCalledWith(new Error('redis down'));
    expect(time.pending.size).toBe(1);
    time.fire();
    expect(beats).toHaveLength(2);
  });

  it('stop() before the first tick cancels it: no beat ever runs', async () => {
    const time = manualSchedule();
    const beat = vi.fn(() => Promise.resolve());
    await startBeats(beat, 500, time.schedule, () => undefined).stop();
    expect(time.pending.size).toBe(0);
    expect(beat).not.toHaveBeenCalled();
  });

  it('stop() during a beat resolves once it settled, and schedules no other', async () => {
    const time = manualSchedule();
    const beat = deferred();
    const loop = startBeats(() => beat.promise, 500, time.schedule, () => undefined);
    time.fire();
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    beat.resolve();
    await stopping;
    expect(time.pending.size).toBe(0);
  });
});
