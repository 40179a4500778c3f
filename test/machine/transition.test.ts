import { describe, expect, it } from 'vitest';
import { initialState, type MachineState } from '../../src/machine/client-state';
import { HttpError, NetworkError } from '../../src/shared/errors';
import { transition, type MachineEvent } from '../../src/machine/transition';
import { snapshotOf } from '../helpers/snapshots';

const config = { pollInterval: 30_000, readyTimeout: 5_000 };
const start: MachineEvent = { type: 'start', activity: 'active' };
const v5 = snapshotOf(5, { a: true });
const v7 = snapshotOf(7, { a: false });
const v3 = snapshotOf(3, { a: 'old' });

function run(events: MachineEvent[], cfg = config) {
  let state: MachineState = initialState();
  const effects = [];
  for (const event of events) {
    const next = transition(state, event, cfg);
    state = next.state;
    effects.push(next.effects);
  }
  return { state, effects, last: effects[effects.length - 1]! };
}

const net = (snapshot = v5, etag: string | null = `"snapshot-${snapshot.version}"`): MachineEvent => ({
  type: 'snapshot-received',
  snapshot,
  etag,
  source: 'network',
});
const failed = (random = 0): MachineEvent => ({ type: 'fetch-failed', error: new NetworkError('GET /x', 'down'), retryAfterMs: null, random });

describe('transition: the fetch machine as a table', () => {
  it('start fetches and arms the ready timeout', () => {
    const { state, last } = run([start]);
    expect(last).toEqual([{ type: 'timer', timer: 'ready-timeout', delay: 5000 }, { type: 'fetch', minVersion: null }]);
    expect(state.fetch).toBe('in-flight');
    expect(state.status.status).toBe('initializing');
  });

  it('a bootstrap snapshot makes the client ready before start, which then does not arm the timeout', () => {
    const { state, effects } = run([{ type: 'snapshot-received', snapshot: v5, etag: null, source: 'bootstrap' }, start]);
    expect(effects[0]).toContainEqual({ type: 'resolve-ready', result: { status: 'ready', source: 'bootstrap' } });
    expect(effects[1]).toEqual([{ type: 'fetch', minVersion: null }]);
    expect(state.status).toMatchObject({ status: 'ready', source: 'bootstrap', version: 5 });
  });

  it('the first network snapshot resolves ready, persists and schedules the next poll', () => {
    const { state, last } = run([start, net()]);
    expect(last).toEqual([
      { type: 'persist', snapshot: v5, etag: '"snapshot-5"' },
      { type: 'resolve-ready', result: { status: 'ready', source: 'network' } },
      { type: 'timer', timer: 'poll-due', delay: 30_000 },
    ]);
    expect(state).toMatchObject({ snapshot: v5, etag: '"snapshot-5"', fetch: 'idle', failures: 0 });
  });

  it('pollInterval 0 fetches once: no poll after a success', () => {
    const { last } = run([start, net()], { pollInterval: 0, readyTimeout: 5000 });
    expect(last.some((effect) => effect.type === 'timer')).toBe(false);
  });

  it('304 keeps the snapshot, keeps the same status object, and schedules the next poll', () => {
    const before = run([start, net(), { type: 'poll-due' }]).state;
    const next = transition(before, { type: 'not-modified' }, config);
    expect(next.state.snapshot).toBe(before.snapshot);
    expect(next.state.status).toBe(before.status);
    expect(next.effects).toEqual([{ type: 'timer', timer: 'poll-due', delay: 30_000 }]);
  });

  it('a lower version is ignored (protocol.md §8): snapshot, etag and status are kept', () => {
    const before = run([start, net(v7)]).state;
    const next = transition(before, net(v3), config);
    expect(next.state.snapshot).toBe(v7);
    expect(next.state.etag).toBe('"snapshot-7"');
    expect(next.state.status).toBe(before.status);
    expect(next.effects).toEqual([{ type: 'timer', timer: 'poll-due', delay: 30_000 }]);
  });

  it('a gap in versions is taken as is (protocol.md §8)', () => {
    const { state } = run([start, net(v3), net(v7)]);
    expect(state.snapshot).toBe(v7);
    expect(state.status.version).toBe(7);
  });

  it('the same version does not replace the snapshot object', () => {
    const copy = snapshotOf(5, { a: true });
    const { state } = run([start, net(v5), net(copy)]);
    expect(state.snapshot).toBe(v5);
  });

  it('a failure reports, records the error and backs off; a success clears both', () => {
    const afterFail = run([start, failed()]);
    expect(afterFail.last).toEqual([
      { type: 'report', error: expect.any(NetworkError) },
      { type: 'timer', timer: 'poll-due', delay: 1000 },
    ]);
    expect(afterFail.state.status.error).toBeInstanceOf(NetworkError);
    const { state } = run([start, failed(), { type: 'poll-due' }, net()]);
    expect(state.status.error).toBeNull();
    expect(state.failures).toBe(0);
  });

  it('failures back off 1s, 2s, 4s … capped at the poll interval', () => {
    const events: MachineEvent[] = [start];
    for (let i = 0; i < 7; i++) events.push(failed(), { type: 'poll-due' });
    const { effects } = run(events, { pollInterval: 10_000, readyTimeout: 5000 });
    const delays = effects.flatMap((list) => list.filter((e) => e.type === 'timer' && e.timer === 'poll-due').map((e) => (e as { delay: number }).delay));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it('jitter adds up to 20% of the delay', () => {
    const { last } = run([start, failed(0.5)]);
    expect(last[1]).toEqual({ type: 'timer', timer: 'poll-due', delay: 1100 });
  });

  it('Retry-After lengthens the delay', () => {
    const error = new HttpError(503, 'GET /sdk/v1/snapshot');
    const { last } = run([start, { type: 'fetch-failed', error, retryAfterMs: 20_000, random: 0 }]);
    expect(last[1]).toEqual({ type: 'timer', timer: 'poll-due', delay: 20_000 });
  });

  it('a fetch the framework interrupted resolves ready as interrupted, reports nothing, counts no failure and waits for the next poll', () => {
    const { state, last } = run([start, { type: 'fetch-interrupted' }]);
    expect(last).toEqual([
      { type: 'resolve-ready', result: { status: 'interrupted', source: null } },
      { type: 'timer', timer: 'poll-due', delay: 30_000 },
    ]);
    expect(state).toMatchObject({ fetch: 'idle', failures: 0, status: { status: 'initializing', error: null } });
    expect(run([start, { type: 'fetch-interrupted' }], { pollInterval: 0, readyTimeout: 5000 }).last).toEqual([
      { type: 'resolve-ready', result: { status: 'interrupted', source: null } },
    ]);
    // Once ready, an interrupted fetch resolves nothing again.
    expect(run([start, net(), { type: 'poll-due' }, { type: 'fetch-interrupted' }]).last).toEqual([{ type: 'timer', timer: 'poll-due', delay: 30_000 }]);
  });

  it('the ready timeout fails readiness once; a later success makes it ready without resolving again', () => {
    const timedOut = run([start, { type: 'ready-timeout' }]);
    expect(timedOut.last).toEqual([{ type: 'resolve-ready', result: { status: 'timeout', source: null } }]);
    expect(timedOut.state.status.status).toBe('failed');
    const later = run([start, { type: 'ready-timeout' }, net()]);
    expect(later.state.status.status).toBe('ready');
    expect(later.last.some((effect) => effect.type === 'resolve-ready')).toBe(false);
  });

  // A fetch effect also cancels the scheduled poll (the shell clears `poll-due`): every fetch
  // ends in a success or a failure that arms the next one.
  it('a poll due while a fetch is in flight does nothing; refresh restarts the fetch', () => {
    const started = run([start]).state;
    expect(transition(started, { type: 'poll-due' }, config)).toEqual({ state: started, effects: [] });
    expect(transition(started, { type: 'refresh' }, config).effects).toEqual([{ type: 'fetch', minVersion: null }]);
  });

  it('close stops everything, resolves a pending ready, and then ignores every event', () => {
    const { state, last } = run([start, { type: 'close' }]);
    expect(last).toEqual([{ type: 'stop' }, { type: 'resolve-ready', result: { status: 'closed', source: null } }]);
    expect(state.status.connection).toBe('stopped');
    for (const event of [net(), failed(), { type: 'poll-due' }, { type: 'refresh' }] as MachineEvent[]) {
      expect(transition(state, event, config)).toEqual({ state, effects: [] });
    }
  });

  it('stream updated: fetches with minVersion, unless the version is already held', () => {
    const held = run([start, net(v5)]).state;
    expect(transition(held, { type: 'stream-notify', kind: 'updated', version: 5 }, config)).toEqual({ state: held, effects: [] });
    const next = transition(held, { type: 'stream-notify', kind: 'updated', version: 7 }, config);
    expect(next.effects).toEqual([{ type: 'fetch', minVersion: 7 }]);
    expect(next.state).toMatchObject({ wanted: 7, fetch: 'in-flight' });
  });

  it('stream resync refetches even at the held version', () => {
    const held = run([start, net(v5)]).state;
    expect(transition(held, { type: 'stream-notify', kind: 'resync', version: 5 }, config).effects).toContainEqual({ type: 'fetch', minVersion: 5 });
  });

  it('coalesces a burst: notifications during a fetch only raise the target', () => {
    const events: MachineEvent[] = [start, net(v3)];
    for (let version = 4; version <= 13; version++) events.push({ type: 'stream-notify', kind: 'updated', version });
    const { state, effects } = run(events);
    const fetches = effects.flat().filter((effect) => effect.type === 'fetch');
    expect(fetches).toEqual([{ type: 'fetch', minVersion: null }, { type: 'fetch', minVersion: 4 }]);
    expect(state.wanted).toBe(13);
  });

  it('an answer older than minVersion is retried after 250, 500 and 1000 ms, then given up for the next poll', () => {
    const events: MachineEvent[] = [start, net(v3), { type: 'stream-notify', kind: 'updated', version: 7 }];
    const delays: Array<number | null> = [];
    const fetches: unknown[] = [];
    let state = run(events).state;
    for (let i = 0; i < 4; i++) {
      const answered = transition(state, net(v5), config);
      const timers = answered.effects.filter((effect) => effect.type === 'timer');
      expect(timers).toHaveLength(1);
      delays.push(timers[0]!.type === 'timer' ? timers[0]!.delay : null);
      const due = transition(answered.state, { type: 'poll-due' }, config);
      fetches.push(...due.effects);
      state = due.state;
    }
    expect(delays).toEqual([250, 500, 1000, 30_000]);
    expect(fetches).toEqual([7, 7, 7, null].map((minVersion) => ({ type: 'fetch', minVersion })));
    expect(state.wanted).toBeNull();
  });

  it('catching up goes on with polling off', () => {
    const cfg = { pollInterval: 0, readyTimeout: 5000 };
    const behind = run([start, net(v3), { type: 'stream-notify', kind: 'updated', version: 7 }, net(v5)], cfg);
    expect(behind.last).toContainEqual({ type: 'timer', timer: 'poll-due', delay: 250 });
    const caughtUp = transition(transition(behind.state, { type: 'poll-due' }, cfg).state, net(v7), cfg);
    expect(caughtUp.effects.some((effect) => effect.type === 'timer')).toBe(false);
    expect(caughtUp.state.wanted).toBeNull();
  });

  it('catching up ends when the wanted version arrives', () => {
    const { state, last } = run([start, net(v3), { type: 'stream-notify', kind: 'updated', version: 7 }, net(v7)]);
    expect(state).toMatchObject({ wanted: null, catchUps: 0 });
    expect(last.filter((effect) => effect.type === 'timer')).toEqual([{ type: 'timer', timer: 'poll-due', delay: 30_000 }]);
  });

  it('stream state is the connection; a stream stopped for good leaves polling', () => {
    const connecting = run([start, net(v5), { type: 'stream-state', connection: 'streaming' }]).state;
    expect(connecting.status.connection).toBe('streaming');
    const stopped = transition(connecting, { type: 'stream-state', connection: 'stopped' }, config).state;
    expect(stopped.status.connection).toBe('polling');
    expect(transition(stopped, { type: 'poll-due' }, config).effects).toEqual([{ type: 'fetch', minVersion: null }]);
  });

  it('activity: hidden or offline cancels the poll and ignores poll timers; back to active fetches at once', () => {
    const polling = run([start, net(v5)]).state;
    const hidden = transition(polling, { type: 'activity', activity: 'hidden' }, config);
    expect(hidden.effects).toEqual([{ type: 'timer', timer: 'poll-due', delay: null }]);
    expect(transition(hidden.state, { type: 'poll-due' }, config).effects).toEqual([]);
    const back = transition(hidden.state, { type: 'activity', activity: 'active' }, config);
    expect(back.effects).toEqual([{ type: 'fetch', minVersion: null }]);
    const offline = transition(polling, { type: 'activity', activity: 'offline' }, config).state;
    expect(transition(offline, { type: 'stream-notify', kind: 'updated', version: 9 }, config).effects).toEqual([]);
  });

  it('start while offline arms the ready timeout but makes no request', () => {
    const { state, last } = run([{ type: 'start', activity: 'offline' }]);
    expect(last).toEqual([{ type: 'timer', timer: 'ready-timeout', delay: 5000 }]);
    expect(state).toMatchObject({ activity: 'offline', fetch: 'idle' });
  });

  it('start while hidden arms the ready timeout and makes no request until visible', () => {
    const { state, last } = run([{ type: 'start', activity: 'hidden' }]);
    expect(last.filter((effect) => effect.type === 'fetch')).toEqual([]);
    expect(transition(state, { type: 'activity', activity: 'active' }, config).effects).toEqual([{ type: 'fetch', minVersion: null }]);
  });

  it('before start nothing fetches: the machine starts paused', () => {
    const idle = initialState();
    for (const event of [{ type: 'poll-due' }, { type: 'stream-notify', kind: 'resync', version: 1 }] as MachineEvent[]) {
      expect(transition(idle, event, config).effects).toEqual([]);
    }
  });

  it('a version jump emits version_skew; the next version and a first snapshot do not', () => {
    const { effects } = run([start, net(v3), net(snapshotOf(4, {})), net(v7)]);
    const skews = effects.flat().filter((effect) => effect.type === 'version_skew');
    expect(skews).toEqual([{ type: 'version_skew', previousVersion: 4, currentVersion: 7 }]);
  });

  it('a 304 before any snapshot changes nothing but the fetch state', () => {
    const { state, last } = run([start, { type: 'not-modified' }]);
    expect(state.status.status).toBe('initializing');
    expect(state.fetch).toBe('idle');
    expect(last).toEqual([{ type: 'timer', timer: 'poll-due', delay: 30_000 }]);
  });

  it('the same version from another source keeps the status; a new ETag is taken', () => {
    const before = run([start, net(v5)]).state;
    const next = transition(before, { type: 'snapshot-received', snapshot: snapshotOf(5, {}), etag: '"other"', source: 'tab' }, config);
    expect(next.state.status).toBe(before.status);
    expect(next.state.snapshot).toBe(v5);
    expect(next.state.etag).toBe('"other"');
    expect(next.effects).toEqual([]);
  });
});
