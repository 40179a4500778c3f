import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultScheduler } from '../../src/shared/scheduler';
import { initialStreamState, streamTransition } from '../../src/stream/stream-machine';
import type { StreamEvent, StreamState, StreamStep } from '../../src/stream/stream-machine';
import { connectedFrame, createFakeTransport, recordStream } from './harness';
import type { FakeSocket } from './harness';

const connected: StreamEvent = { type: 'message', data: JSON.stringify(connectedFrame()) };

const step = (state: StreamState, event: StreamEvent, random = 0): StreamStep => streamTransition(state, event, random, 1);

/** Drives the machine through `count` failed connections and returns the delays it chose. */
function failures(state: StreamState, count: number, random: number): { delays: Array<number | null>; state: StreamState } {
  const delays: Array<number | null> = [];
  for (let i = 0; i < count; i++) {
    const closed = step(state, { type: 'close', code: 1006, reason: '' }, random);
    delays.push(closed.timer);
    // The reconnect timer fires, a new socket opens (and even opens), then fails again.
    state = step(closed.state, { type: 'timer' }, random).state;
    state = step(state, { type: 'open' }).state;
  }
  return { delays, state };
}

describe('reconnect backoff (pure)', () => {
  const start = step(initialStreamState, { type: 'start' }).state;

  it('doubles from 1 s to a cap of 60 s without jitter when random is 0', () => {
    expect(failures(start, 8, 0).delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('adds random × 20 % of the delay as jitter', () => {
    expect(failures(start, 8, 0.5).delays).toEqual([1100, 2200, 4400, 8800, 17_600, 35_200, 66_000, 66_000]);
    expect(failures(start, 1, 0.999).delays).toEqual([1200]);
  });

  it('resets after connected, not after a socket merely opened', () => {
    const { state } = failures(start, 3, 0);
    expect(failures(state, 1, 0).delays).toEqual([8000]);
    const afterConnected = step(state, connected).state;
    expect(afterConnected.attempt).toBe(0);
    expect(failures(afterConnected, 2, 0).delays).toEqual([1000, 2000]);
  });
});

/** The delays of a stream that reaches `connected`, then is closed with `code`, `count` times in a row. */
function closesAfterConnected(state: StreamState, code: number, count: number, random: number): Array<number | null> {
  const delays: Array<number | null> = [];
  for (let i = 0; i < count; i++) {
    const closed = step(step(state, connected).state, { type: 'close', code, reason: 'going away' }, random);
    delays.push(closed.timer);
    state = step(step(closed.state, { type: 'timer' }, random).state, { type: 'open' }).state;
  }
  return delays;
}

describe('going away (1001): a prompt reconnect, not a backoff (pure)', () => {
  const start = step(initialStreamState, { type: 'start' }).state;

  it.each([
    [0, 0],
    [0.25, 250],
    [0.5, 500],
    [0.999, 999],
  ])('after connected, waits random × 1 s: random %f → %i ms', (random, delay) => {
    const closed = step(step(start, connected).state, { type: 'close', code: 1001, reason: 'going away' }, random);
    expect(closed).toEqual({ state: { ...start, connection: 'reconnecting', attempt: 0, heartbeatMs: 15_000 }, timer: delay });
  });

  it('stays prompt as long as every socket reaches connected before it goes away', () => {
    expect(closesAfterConnected(start, 1001, 5, 0.5)).toEqual([500, 500, 500, 500, 500]);
    // Any other close after connected waits the first backoff step.
    expect(closesAfterConnected(start, 1006, 3, 0.5)).toEqual([1100, 1100, 1100]);
  });

  it('resets the backoff: a going-away close after failed attempts waits no longer than the first', () => {
    const { state } = failures(start, 4, 0);
    expect(state.attempt).toBe(4);
    expect(closesAfterConnected(state, 1001, 1, 0.5)).toEqual([500]);
  });

  it('falls back to the growing backoff when the server goes away again before connected', () => {
    const afterConnected = step(start, connected).state;
    let closed = step(afterConnected, { type: 'close', code: 1001, reason: 'going away' }, 0);
    const delays = [closed.timer];
    for (let i = 0; i < 7; i++) {
      // The reconnect opens a socket, which the server closes 1001 before any connected.
      const opened = step(step(closed.state, { type: 'timer' }).state, { type: 'open' }).state;
      closed = step(opened, { type: 'close', code: 1001, reason: 'going away' }, 0);
      expect(closed.report).toBeUndefined();
      delays.push(closed.timer);
    }
    expect(delays).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000]);
  });
});

describe('reconnect backoff (through the shell, fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Milliseconds between consecutive sockets when every socket fails at once. */
  async function gaps(random: number, count: number): Promise<number[]> {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, scheduler: { ...defaultScheduler, random: () => random } });
    const opened: number[] = [Date.now()];
    for (let i = 0; i < count; i++) {
      fake.last.serverClose(1006);
      const before = fake.sockets.length;
      let waited = 0;
      while (fake.sockets.length === before) {
        await vi.advanceTimersByTimeAsync(100);
        waited += 100;
        if (waited > 120_000) throw new Error('no reconnect');
      }
      opened.push(Date.now());
    }
    stream.connection.close();
    return opened.slice(1).map((at, i) => at - (opened[i] as number));
  }

  it('opens the next socket exactly after each delay', async () => {
    expect(await gaps(0, 8)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('takes the jitter from scheduler.random', async () => {
    expect(await gaps(0.5, 3)).toEqual([1100, 2200, 4400]);
  });

  it.each([
    ['a close', (socket: FakeSocket) => socket.serverClose(1006)],
    ['a transport error', (socket: FakeSocket) => socket.fail()],
    ['a frame that is not JSON', (socket: FakeSocket) => socket.receive('{')],
  ])('after %s the reconnect takes its jitter from scheduler.random', async (_name, failure) => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport, scheduler: { ...defaultScheduler, random: () => 0.5 } });
    failure(fake.last);
    await vi.advanceTimersByTimeAsync(1099);
    expect(fake.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.sockets).toHaveLength(2);
    stream.connection.close();
  });

  it('does not open early', async () => {
    const fake = createFakeTransport();
    recordStream({ transport: fake.transport }).connection;
    fake.last.serverClose(1001);
    await vi.advanceTimersByTimeAsync(999);
    expect(fake.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.sockets).toHaveLength(2);
  });

  it('starts again at 1 s after a connected', async () => {
    const fake = createFakeTransport();
    const stream = recordStream({ transport: fake.transport });
    fake.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(1000);
    fake.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(2000);
    expect(fake.sockets).toHaveLength(3);
    fake.last.open();
    fake.last.receive(connectedFrame());
    fake.last.serverClose(1006);
    await vi.advanceTimersByTimeAsync(999);
    expect(fake.sockets).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.sockets).toHaveLength(4);
    stream.connection.close();
  });
});
