// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import { snapshotOf } from '../helpers/snapshots';

afterEach(() => {
  vi.useRealTimers();
  localStorage.clear();
  // Back to the prototype's 'visible'.
  delete (document as { visibilityState?: string }).visibilityState;
});

describe('page unload', () => {
  it('flushes the buffer with keepalive on pagehide and on visibilitychange to hidden', async () => {
    vi.useFakeTimers();
    const plane = fakeDataPlane(snapshotOf(1, { a: true, b: false }));
    const { client } = harness(plane.handler, { events: true, flushInterval: 0, context: { userId: 'u' } });
    await client.ready();
    client.get('a');
    window.dispatchEvent(new Event('pagehide'));
    await vi.advanceTimersByTimeAsync(0);
    expect(plane.batches).toEqual([expect.objectContaining({ keepalive: true, events: [expect.objectContaining({ key: 'a' })] })]);

    client.get('b');
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(0);
    expect(plane.batches).toHaveLength(2);
    await client.close();
    window.dispatchEvent(new Event('pagehide'));
    await vi.advanceTimersByTimeAsync(0);
    expect(plane.batches).toHaveLength(2);
  });

  it('persists the snapshot and the anonymous id in localStorage by default in browsers', async () => {
    const plane = fakeDataPlane(snapshotOf(3, { a: true }));
    const first = harness(plane.handler, { anonymousId: undefined });
    await first.client.ready();
    await first.client.close();
    expect(localStorage.getItem('svc:anonymousId')).toMatch(/^[0-9a-f-]{36}$/);
    const second = harness(() => 'hang', { anonymousId: undefined });
    expect(second.client.get('a')).toBe(true);
    expect(second.client.getStatus().source).toBe('cache');
    await second.client.close();
    const off = harness(() => 'hang', { persist: false });
    expect(off.client.get('a', false)).toBe(false);
    await off.client.close();
  });
});
