/**
 * Adds `listener` for each of `types` on `target` and returns one function that removes
 * them all. A target without `addEventListener` (no `document` on a server, React Native's
 * global, Node's `globalThis`) gets nothing and a no-op unsubscribe.
 * @internal
 */
export function listen(target: unknown, types: string[], listener: (event: Event) => void): () => void {
  const events = target as Partial<EventTarget> | undefined;
  if (typeof events?.addEventListener !== 'function') return () => {};
  for (const type of types) events.addEventListener(type, listener);
  return () => {
    for (const type of types) events.removeEventListener?.(type, listener);
  };
}
