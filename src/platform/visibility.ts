import { listen, stopAll } from './listen';

/**
 * Where the client learns whether the page is visible. Replace it to drive the client
 * from another signal (React Native `AppState`, a test).
 */
export interface VisibilitySource {
  /** Whether the page is visible now. */
  isVisible(): boolean;
  /** Calls `onChange` with the new visibility on each change; returns the unsubscribe function. */
  subscribe(onChange: (visible: boolean) => void): () => void;
}

// `document` is looked up at each call, never at import, so server rendering and React
// Native (neither has one) load this module safely.
const currentDocument = () => (globalThis as { document?: Document }).document;

/**
 * Visibility from `document.visibilityState`, listening to `visibilitychange` only while
 * subscribed. Without a `document` the page is always visible and `subscribe` is a no-op.
 */
export function browserVisibility(): VisibilitySource {
  const isVisible = () => currentDocument()?.visibilityState !== 'hidden';
  return {
    isVisible,
    subscribe: (onChange) => listen(currentDocument(), 'visibilitychange', () => onChange(isVisible())),
  };
}

/**
 * Calls `callback` when the page is going away, to flush buffered events: on `pagehide`
 * (`globalThis`) and when `document` becomes hidden. Both are needed — mobile browsers
 * may discard a hidden page without `pagehide`, and Safari may skip `visibilitychange`
 * on unload — so one unload can call `callback` twice; flushing must be idempotent.
 * Returns one unsubscribe that removes both listeners; a no-op outside browsers.
 */
export function onPageHide(callback: () => void): () => void {
  return stopAll(
    listen(globalThis, 'pagehide', () => callback()),
    browserVisibility().subscribe((visible) => {
      if (!visible) callback();
    }),
  );
}
