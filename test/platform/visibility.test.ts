// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserVisibility, onPageHide } from '../../src/platform/visibility';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
  // Removing the own property brings back happy-dom's prototype getter.
  delete (document as { visibilityState?: unknown }).visibilityState;
  vi.restoreAllMocks();
});

/** Sets `document.visibilityState`; `dispatch` also fires `visibilitychange`, as a browser does. */
function setVisibility(state: DocumentVisibilityState, dispatch = true): void {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  if (dispatch) document.dispatchEvent(new Event('visibilitychange'));
}

const track = <T extends () => void>(unsubscribe: T): T => {
  cleanups.push(unsubscribe);
  return unsubscribe;
};

describe('browserVisibility', () => {
  it('reads document.visibilityState at each call', () => {
    const source = browserVisibility();
    setVisibility('hidden', false);
    expect(source.isVisible()).toBe(false);
    setVisibility('visible', false);
    expect(source.isVisible()).toBe(true);
  });

  it('adds no listener until subscribed', () => {
    const add = vi.spyOn(document, 'addEventListener');
    const source = browserVisibility();
    source.isVisible();
    expect(add).not.toHaveBeenCalled();
    track(source.subscribe(() => {}));
    expect(add).toHaveBeenCalledTimes(1);
    expect(add.mock.calls[0]?.[0]).toBe('visibilitychange');
  });

  it('reports every visibilitychange with the new visibility', () => {
    const seen: boolean[] = [];
    track(browserVisibility().subscribe((visible) => seen.push(visible)));
    setVisibility('hidden');
    setVisibility('visible');
    expect(seen).toEqual([false, true]);
  });

  it('unsubscribe stops that listener only', () => {
    const first = vi.fn();
    const second = vi.fn();
    const source = browserVisibility();
    const unsubscribe = source.subscribe(first);
    track(source.subscribe(second));
    unsubscribe();
    setVisibility('hidden');
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledWith(false);
  });
});

describe('onPageHide', () => {
  it('calls back, without arguments, on pagehide', () => {
    const callback = vi.fn();
    track(onPageHide(callback));
    window.dispatchEvent(new Event('pagehide'));
    expect(callback).toHaveBeenCalledTimes(1);
    expect(callback).toHaveBeenCalledWith();
  });

  it('calls back when the document becomes hidden, not when it becomes visible', () => {
    const callback = vi.fn();
    track(onPageHide(callback));
    setVisibility('visible');
    expect(callback).not.toHaveBeenCalled();
    setVisibility('hidden');
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it('one unsubscribe removes both listeners', () => {
    const callback = vi.fn();
    const unsubscribe = onPageHide(callback);
    unsubscribe();
    window.dispatchEvent(new Event('pagehide'));
    setVisibility('hidden');
    expect(callback).not.toHaveBeenCalled();
  });
});
