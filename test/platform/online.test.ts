// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserOnline } from '../../src/platform/online';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  delete (navigator as { onLine?: unknown }).onLine;
  vi.restoreAllMocks();
});

const setOnLine = (onLine: boolean) =>
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => onLine });

describe('browserOnline', () => {
  it('reads navigator.onLine at each call', () => {
    const source = browserOnline();
    setOnLine(false);
    expect(source.isOnline()).toBe(false);
    setOnLine(true);
    expect(source.isOnline()).toBe(true);
  });

  it('adds no listener until subscribed', () => {
    const add = vi.spyOn(globalThis, 'addEventListener');
    const source = browserOnline();
    source.isOnline();
    expect(add).not.toHaveBeenCalled();
    cleanups.push(source.subscribe(() => {}));
    expect(add.mock.calls.map((call) => call[0]).sort()).toEqual(['offline', 'online']);
  });

  it('reports offline and online events', () => {
    const seen: boolean[] = [];
    cleanups.push(browserOnline().subscribe((online) => seen.push(online)));
    window.dispatchEvent(new Event('offline'));
    window.dispatchEvent(new Event('online'));
    window.dispatchEvent(new Event('offline'));
    expect(seen).toEqual([false, true, false]);
  });

  it('unsubscribe removes both listeners of that subscriber only', () => {
    const first = vi.fn();
    const second = vi.fn();
    const source = browserOnline();
    const unsubscribe = source.subscribe(first);
    cleanups.push(source.subscribe(second));
    unsubscribe();
    window.dispatchEvent(new Event('offline'));
    window.dispatchEvent(new Event('online'));
    expect(first).not.toHaveBeenCalled();
    expect(second.mock.calls).toEqual([[false], [true]]);
  });
});
