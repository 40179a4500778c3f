import { listen, stopAll } from './listen';

/**
 * Watches the page going away: `pagehide` (a navigation, a closing tab, the back-forward
 * cache) calls `onExit`, and the `pageshow` that brings such a page back calls `onBack`.
 * `exits()` counts the `pagehide`s: a request that fails with the count moved was ended by
 * the page, not by the network. Outside browsers the page never goes.
 */
export function watchPageExit(onExit: () => void, onBack: () => void) {
  let exits = 0;
  const stop = stopAll(
    listen(globalThis, 'pagehide', () => {
      exits++;
      onExit();
    }),
    listen(globalThis, 'pageshow', (event) => {
      // The first `pageshow` is the page's load.
      if ((event as PageTransitionEvent).persisted) onBack();
    }),
  );
  return { exits: () => exits, stop };
}
