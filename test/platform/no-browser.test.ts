import { afterEach, describe, expect, it, vi } from 'vitest';

// Node environment: no document, window or navigator (Node 20), and no addEventListener
// on globalThis — the shape of server rendering. React Native has a navigator without onLine.

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('platform outside browsers', () => {
  it('importing src/platform/index.ts touches no browser global', async () => {
    const watched = ['document', 'navigator', 'window', 'BroadcastChannel', 'addEventListener', 'self'] as const;
    const originals = watched.map((key) => [key, Object.getOwnPropertyDescriptor(globalThis, key)] as const);
    const touched: string[] = [];
    for (const key of watched) {
      const original = Object.getOwnPropertyDescriptor(globalThis, key);
      Object.defineProperty(globalThis, key, {
        configurable: true,
        get() {
          touched.push(key);
          return original?.get ? original.get.call(globalThis) : original?.value;
        },
      });
    }
    try {
      vi.resetModules();
      const platform = await import('../../src/platform/index');
      expect(Object.keys(platform).sort()).toEqual(['browserOnline', 'browserVisibility', 'createTabSync', 'onPageHide', 'watchPageExit']);
      expect(touched).toEqual([]);
      // The recorder works: a call that does read a global is seen.
      platform.browserOnline().isOnline();
      expect(touched).toContain('navigator');
    } finally {
      for (const [key, descriptor] of originals) {
        if (descriptor) Object.defineProperty(globalThis, key, descriptor);
        else delete (globalThis as Record<string, unknown>)[key];
      }
    }
  });

  it('without a document the page is visible and subscribing is a no-op', async () => {
    const { browserVisibility, onPageHide } = await import('../../src/platform/index');
    expect(typeof document).toBe('undefined');
    const source = browserVisibility();
    expect(source.isVisible()).toBe(true);
    const unsubscribe = source.subscribe(() => {});
    expect(unsubscribe).toBeTypeOf('function');
    expect(() => unsubscribe()).not.toThrow();
    const offPageHide = onPageHide(() => {});
    expect(() => offPageHide()).not.toThrow();
  });

  it('is online without navigator, and with a React Native navigator that has no onLine', async () => {
    const { browserOnline } = await import('../../src/platform/index');
    vi.stubGlobal('navigator', undefined);
    expect(browserOnline().isOnline()).toBe(true);
    vi.stubGlobal('navigator', { product: 'ReactNative' });
    expect(browserOnline().isOnline()).toBe(true);
    vi.stubGlobal('navigator', { onLine: false });
    expect(browserOnline().isOnline()).toBe(false);
    const unsubscribe = browserOnline().subscribe(() => {});
    expect(() => unsubscribe()).not.toThrow();
  });
});
