import { listen, stopAll } from './listen';

/**
 * Watches the page going away: `pagehide` (a navigation, a closing tab, the back-forward
 * cache) calls `onExit`, and the `pageshow` that brings such a page back calls `onBack`.
 * Browsers end the requests in flight right after `pagehide`, so until the page is back,
 * `gone()` is true and a failed request is the page's doing, not the network's. Outside
 * browsers the page never goes.
 */
export function watchPageExit(onExit: () => void, onBack: () => void) {
  let gone = false;
  const stop = stopAll(
    listen(globalThis, 'pagehide', () => {
      gone = true;
      onExit();
    }),
    listen(globalThis, 'pageshow', () => {
      if (!gone) return;
      gone = false;
      onBack();
    }),
  );
  return { gone: () => gone, stop };
}
