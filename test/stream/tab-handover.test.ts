import { afterEach, describe, expect, it, vi } from 'vitest';
import { fingerprint } from '../../src/shared/fingerprint';
import { SHARE_GRACE_MS } from '../../src/stream/tab-handover';
import { createFakeTabLock } from '../helpers/fake-tab-lock';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';
import { connectedFrame, createFakeTransport, recordStream, SDK_KEY } from './harness';

useFakeTimersInEachTest();
/** Every stream the tests open, closed after each. */
const opened: Array<{ close(): void }> = [];
afterEach(() => {
  for (const connection of opened.splice(0)) connection.close();
  vi.unstubAllGlobals();
});

const LOCK = `flagplane:${fingerprint(SDK_KEY)}`;
/** Lets granted locks run their task and settled fetches release (microtasks and zero-delay timers). */
const flush = () => vi.advanceTimersByTimeAsync(0);

/** A fetch the test settles by hand: `fetched()` resolves once `settle()` was called. */
function manualFetch() {
  let settle!: () => void;
  let calls = 0;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  return { fetched: () => (calls++, settled), settle, calls: () => calls };
}

/** A streaming "tab": a stream connection, connected, whose client shares snapshots (it passes `fetched`). */
function tab(options: Partial<Parameters<typeof recordStream>[0]> = {}) {
  const sockets = createFakeTransport();
  const stream = recordStream({ transport: sockets.transport, ...options });
  opened.push(stream.connection);
  sockets.last.open();
  sockets.last.receive(connectedFrame());
  const updated = (version: number) => sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version });
  return { ...stream, sockets, updated };
}

/** Tab A holds the lock for version 8 (its fetch settles on `holder.settle()`); tab B streams too. */
async function aHoldsTheLock() {
  const locks = createFakeTabLock();
  const holder = manualFetch();
  const a = tab({ tabLock: locks.lock, fetched: holder.fetched });
  const b = tab({ tabLock: locks.lock, fetched: () => Promise.resolve() });
  a.updated(8);
  await flush();
  return { locks, holder, a, b };
}

describe('tab handover: streaming tabs take turns on a lock', () => {
  it('hands a notice on only once the lock is held, and keeps the lock until the fetch it caused settled', async () => {
    const locks = createFakeTabLock();
    const fetchA = manualFetch();
    const fetchB = manualFetch();
    const a = tab({ tabLock: locks.lock, fetched: fetchA.fetched });
    const b = tab({ tabLock: locks.lock, fetched: fetchB.fetched });
    a.updated(8);
    b.updated(8);
    expect(a.notifies()).toEqual([]);
    await flush();
    // A asked first: it holds the lock and hands the notice on; B waits.
    expect(a.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
    expect(b.notifies()).toEqual([]);
    // A found the lock free; B found it taken, and waits in line.
    expect(locks.requested).toEqual([LOCK, LOCK, LOCK]);
    expect(locks.waiting(LOCK)).toBe(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(b.notifies()).toEqual([]);
    b.setVersion(8);
    fetchA.settle();
    await flush();
    // B's turn: it holds 8 (from the tab channel), so its notice goes on at once; its client ignores it.
    expect(b.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
    expect(fetchA.calls()).toBe(1);
    fetchB.settle();
    await flush();
    expect(locks.held(LOCK)).toBe(false);
  });

  it('a tab whose turn comes after another tab, without the version, waits SHARE_GRACE_MS for the channel, then hands on', async () => {
    const { locks, holder, b } = await aHoldsTheLock();
    b.updated(8);
    holder.settle();
    await vi.advanceTimersByTimeAsync(SHARE_GRACE_MS - 1);
    expect(b.notifies()).toEqual([]);
    expect(locks.held(LOCK)).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(b.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
  });

  it('a tab that finds the lock free takes its turn at once, with no grace', async () => {
    const locks = createFakeTabLock();
    const a = tab({ tabLock: locks.lock, fetched: () => Promise.resolve() });
    a.updated(8);
    await flush();
    expect(a.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
    expect(locks.requested).toEqual([LOCK]);
  });

  it('closed during its grace, a tab lets go of the lock at once and leaves no timer', async () => {
    const { locks, holder, a, b } = await aHoldsTheLock();
    b.updated(8);
    holder.settle();
    await flush();
    expect(locks.held(LOCK)).toBe(true);
    expect(b.notifies()).toEqual([]);
    a.connection.close();
    b.connection.close();
    await flush();
    expect(b.notifies()).toEqual([]);
    expect(locks.held(LOCK)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('closed while waiting, a tab whose turn comes later takes no grace, hands on nothing and lets go', async () => {
    const { locks, holder, a, b } = await aHoldsTheLock();
    const c = tab({ tabLock: locks.lock, fetched: () => Promise.resolve() });
    c.updated(8);
    await flush();
    c.connection.close();
    holder.settle();
    await flush();
    expect(c.notifies()).toEqual([]);
    expect(locks.held(LOCK)).toBe(false);
    a.connection.close();
    b.connection.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('coalesces the notices heard while waiting into one, for the highest version', async () => {
    const { locks, holder, a, b } = await aHoldsTheLock();
    b.updated(8);
    b.updated(10);
    b.updated(9);
    await flush();
    // A's turn, B's try (taken) and B's place in line: one wait for the three notices.
    expect(locks.requested).toHaveLength(3);
    holder.settle();
    await vi.advanceTimersByTimeAsync(SHARE_GRACE_MS);
    expect(b.notifies()).toEqual([{ kind: 'updated', version: 10 }]);
  });

  it('hands resync on at once, without the lock', async () => {
    const locks = createFakeTabLock();
    const a = tab({ tabLock: locks.lock, fetched: () => new Promise(() => {}) });
    a.sockets.last.receive({ type: 'snapshot.resync', environmentId: 'production', version: 3, reason: 'operator' });
    expect(a.notifies()).toEqual([{ kind: 'resync', version: 3 }]);
    expect(locks.requested).toEqual([]);
  });

  it('without fetched (tab sync off) every notice goes on at once, and no lock is asked for', () => {
    const locks = createFakeTabLock();
    const a = tab({ tabLock: locks.lock });
    a.updated(8);
    a.updated(9);
    expect(a.notifies()).toEqual([
      { kind: 'updated', version: 8 },
      { kind: 'updated', version: 9 },
    ]);
    expect(locks.requested).toEqual([]);
  });

  it('where there is no navigator.locks (Node 20, React Native, older browsers) it behaves as without tabs', () => {
    vi.stubGlobal('navigator', {});
    const a = tab({ fetched: () => new Promise(() => {}) });
    a.updated(8);
    expect(a.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
  });

  it('uses navigator.locks by default, under the name of the key', async () => {
    const locks = createFakeTabLock();
    vi.stubGlobal('navigator', { locks: locks.lock });
    const a = tab({ fetched: () => Promise.resolve() });
    a.updated(8);
    await flush();
    expect(locks.requested).toEqual([LOCK]);
    expect(a.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
  });

  it('a holder that dies (its tab closed) frees the lock: the next tab gets its turn and its notice', async () => {
    const locks = createFakeTabLock();
    const a = tab({ tabLock: locks.lock, fetched: () => new Promise(() => {}) });
    const b = tab({ tabLock: locks.lock, fetched: () => Promise.resolve() });
    a.updated(8);
    b.updated(8);
    await flush();
    expect(b.notifies()).toEqual([]);
    locks.die(LOCK);
    // B's turn, without the version: the grace, then its notice (its client fetches).
    await vi.advanceTimersByTimeAsync(SHARE_GRACE_MS);
    expect(b.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
  });

  it('a wait is capped at the request timeout: a stuck holder does not keep the notice from the next tab, whose late turn hands on nothing', async () => {
    const locks = createFakeTabLock();
    const stuck = manualFetch();
    const a = tab({ tabLock: locks.lock, fetched: stuck.fetched, requestTimeout: 2_000 });
    const b = tab({ tabLock: locks.lock, fetched: () => Promise.resolve(), requestTimeout: 2_000 });
    a.updated(8);
    b.updated(8);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(b.notifies()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(b.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
    stuck.settle();
    await flush();
    expect(b.notifies()).toHaveLength(1);
    expect(locks.held(LOCK)).toBe(false);
  });

  it('a refused lock (an opaque origin) hands the notice on at once', async () => {
    const locks = createFakeTabLock();
    locks.refuse();
    const a = tab({ tabLock: locks.lock, fetched: () => Promise.resolve() });
    a.updated(8);
    await flush();
    expect(a.notifies()).toEqual([{ kind: 'updated', version: 8 }]);
  });

  it('closed while waiting: nothing is handed on, and no timer is left', async () => {
    const { locks, holder, a, b } = await aHoldsTheLock();
    b.updated(8);
    b.connection.close();
    a.connection.close();
    expect(vi.getTimerCount()).toBe(0);
    holder.settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(b.notifies()).toEqual([]);
    expect(locks.held(LOCK)).toBe(false);
  });
});
