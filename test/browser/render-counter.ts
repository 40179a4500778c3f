/**
 * Counts the renders of one React component by name, in a production build, through the hook
 * React DevTools uses (`__REACT_DEVTOOLS_GLOBAL_HOOK__`): React calls `onCommitFiberRoot` after
 * every commit, and a fiber that ran its component in that commit carries the PerformedWork
 * flag (1) — unless the fiber is the very object the previous commit had (a subtree React did
 * not visit keeps its old fibers, flags and all). Install with `context.addInitScript`.
 */
import type { Page } from 'playwright-core';

declare global {
  interface Window {
    /** The `key` prop of each counted render, in order. */
    __renders?: string[];
  }
}

/** Runs in the page before its scripts (no closure: Playwright sends its source). */
export function installRenderCounter(component: string): void {
  let previous = new WeakSet<object>();
  window.__renders = [];
  interface Fiber {
    type: { name?: string } | string | null;
    alternate: Fiber | null;
    flags: number;
    child: Fiber | null;
    sibling: Fiber | null;
    memoizedProps: Record<string, unknown> | null;
  }
  const PERFORMED_WORK = 1;
  // esbuild renames a memo's inner function that shares its name with the constant (`FlagCard2`).
  const named = (type: Fiber['type']) => !!type && typeof type !== 'string' && (type.name ?? '').replace(/\d+$/, '') === component;
  (window as unknown as Record<string, unknown>).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    isDisabled: false,
    renderers: new Map(),
    inject: () => 1,
    onCommitFiberRoot(_renderer: number, root: { current: Fiber }) {
      const seen = new WeakSet<object>();
      const stack: Fiber[] = [root.current];
      while (stack.length) {
        const fiber = stack.pop()!;
        if (named(fiber.type)) {
          seen.add(fiber);
          const ran = fiber.alternate === null || (fiber.flags & PERFORMED_WORK) === PERFORMED_WORK;
          if (!previous.has(fiber) && ran) window.__renders!.push(String(fiber.memoizedProps?.flagKey ?? '?'));
        }
        if (fiber.sibling) stack.push(fiber.sibling);
        if (fiber.child) stack.push(fiber.child);
      }
      previous = seen;
    },
    onCommitFiberUnmount: () => undefined,
    onPostCommitFiberRoot: () => undefined,
    checkDCE: () => undefined,
  };
}

/** The renders counted since the last call, and a fresh count from now. */
export const takeRenders = (page: Page): Promise<string[]> => page.evaluate(() => window.__renders!.splice(0));
