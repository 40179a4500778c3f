/** startHeartbeat on its own: what each round hands to the visitor that sends it in slices. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { startHeartbeat, type HeartbeatTarget } from '../../../reference-server/stream/heartbeat';

const OPEN = 1;

function target(name: string, phase: HeartbeatTarget['phase']) {
  const calls: string[] = [];
  const ws = { OPEN, readyState: OPEN, ping: () => calls.push('ping'), terminate: () => calls.push('terminate') } as unknown as WebSocket;
  return { name, ws, phase, alive: true, calls };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('startHeartbeat', () => {
  it('gives each round every open connection once, with one ts for the whole round, through the visitor', () => {
    const targets = [target('a', 'open'), target('b', 'authenticating'), target('c', 'open')];
    const rounds: string[][] = [];
    const pings: Array<[string, number]> = [];
    const stop = startHeartbeat(targets, {
      heartbeatMs: 100,
      transportPingMs: 1_000_000,
      sendPing: (t, ts) => pings.push([t.name, ts]) > 0,
      visitAll: (list, visit) => {
        rounds.push(list.map((t) => (t as { name: string }).name));
        list.forEach(visit);
      },
    });
    vi.advanceTimersByTime(100);
    expect(rounds).toEqual([['a', 'c']]);
    expect(pings.map(([name]) => name)).toEqual(['a', 'c']);
    expect(new Set(pings.map(([, ts]) => ts)).size).toBe(1);
    stop();
    vi.advanceTimersByTime(1000);
    expect(rounds).toHaveLength(1);
  });

  it('sends transport pings through the visitor too, and terminates a connection that missed the last one', () => {
    const quiet = target('quiet', 'open');
    const answering = target('answering', 'authenticating');
    const visited: number[] = [];
    const stop = startHeartbeat([quiet, answering], {
      heartbeatMs: 1_000_000,
      transportPingMs: 50,
      sendPing: () => true,
      visitAll: (list, visit) => visited.push(list.filter(visit).length),
    });
    vi.advanceTimersByTime(50);
    answering.alive = true;
    vi.advanceTimersByTime(50);
    expect(visited).toEqual([2, 1]);
    expect(quiet.calls).toEqual(['ping', 'terminate']);
    expect(answering.calls).toEqual(['ping', 'ping']);
    stop();
  });
});
