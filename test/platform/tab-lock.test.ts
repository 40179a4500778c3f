import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserTabLock } from '../../src/platform/tab-lock';
import { createFakeTabLock } from '../helpers/fake-tab-lock';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('browserTabLock', () => {
  it('is navigator.locks, looked up at each call', () => {
    vi.stubGlobal('navigator', {});
    expect(browserTabLock()).toBeUndefined();
    const { lock } = createFakeTabLock();
    vi.stubGlobal('navigator', { locks: lock });
    expect(browserTabLock()).toBe(lock);
  });

  it('is undefined without a navigator (Node 20)', () => {
    vi.stubGlobal('navigator', undefined);
    expect(browserTabLock()).toBeUndefined();
  });
});

describe('the fake tab lock the tests use', () => {
  it('grants one request per name at a time, in order, and holds until the task settles', async () => {
    const locks = createFakeTabLock();
    const order: string[] = [];
    let finishFirst!: () => void;
    const first = locks.lock.request('n', {}, () => (order.push('first'), new Promise<void>((resolve) => (finishFirst = resolve))));
    const second = locks.lock.request('n', {}, async () => void order.push('second'));
    const other = locks.lock.request('m', {}, async () => void order.push('other'));
    await Promise.resolve();
    expect(order).toEqual(['first', 'other']);
    expect(locks.waiting('n')).toBe(1);
    finishFirst();
    await Promise.all([first, second, other]);
    expect(order).toEqual(['first', 'other', 'second']);
    expect(locks.held('n')).toBe(false);
  });

  it('with ifAvailable, runs the task at once with null while the lock is taken, and with a lock when it is free', async () => {
    const locks = createFakeTabLock();
    const seen: unknown[] = [];
    let finish!: () => void;
    const holding = locks.lock.request('n', { ifAvailable: true }, (lock) => (seen.push(lock), new Promise<void>((resolve) => (finish = resolve))));
    await locks.lock.request('n', { ifAvailable: true }, async (lock) => void seen.push(lock));
    expect(seen).toEqual([{ name: 'n' }, null]);
    expect(locks.waiting('n')).toBe(0);
    finish();
    await holding;
    expect(locks.held('n')).toBe(false);
  });
});
