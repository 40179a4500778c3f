/**
 * Whether the client runs in a browser page: a `document` and a `window`. Node, Bun and Deno
 * have a `BroadcastChannel` (Deno a `localStorage` too), React Native a `window`, workers
 * neither: none has tabs, a browser profile or a page that goes away. Looked up when a client
 * is created, never at import.
 */
export const inPage = (): boolean => {
  const scope = globalThis as { document?: unknown; window?: unknown };
  return !!(scope.document && scope.window);
};
