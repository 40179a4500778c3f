/**
 * Adds `listener` for `type` on `target` and returns the function that removes it. A
 * target without `addEventListener` (no `document` on a server, React Native's global,
 * Node's `globalThis`) gets nothing and a no-op unsubscribe.
 * @internal
 */
export function listen(target: EventTarget | undefined, type: string, listener: (event: Event) => void): () => void {
  target?.addEventListener?.(type, listener);
  return () => target?.removeEventListener?.(type, listener);
}

/** One function that calls each of `stops`. @internal */
export const stopAll =
  (...stops: Array<() => void>) =>
  (): void =>
    stops.forEach((stop) => stop());
