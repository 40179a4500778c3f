import type { HttpTransport } from './http-types';
import { isString } from '../shared/guards';

/**
 * Whether `fetch` threw to end a server render rather than because the network failed.
 * React's server frameworks mark what they throw with a string `digest` (Next.js: dynamic
 * usage while prerendering, `redirect()`, `notFound()`); React's postpone has its own type;
 * and an abort the client never asked for came from the framework too.
 */
const endedByFramework = (cause: unknown) => {
  const thrown = cause as { digest?: unknown; name?: unknown; $$typeof?: unknown } | null;
  return isString(thrown?.digest) || thrown?.name === 'AbortError' || thrown?.$$typeof === Symbol.for('react.postpone');
};

/**
 * What requests outside browsers add: `no-store`, until the runtime rejects the field
 * (Cloudflare Workers before compatibility date 2024-11-11: "The 'cache' field on
 * 'RequestInitializerDict' is not implemented"); then nothing, for the rest of the process.
 */
let noStore: 'no-store' | undefined = 'no-store';

/**
 * An {@link HttpTransport} on the platform's global `fetch`, resolved at call time.
 *
 * In a page or a worker the browser's HTTP cache revalidates the snapshot itself (the server
 * answers `Cache-Control: no-cache` with an `ETag`), so the request goes out in the default
 * cache mode without our `If-None-Match`: a request that sets either skips the browser's
 * CORS preflight cache and costs a second round trip every time (protocol.md §10). A
 * revalidated answer arrives as a 200 carrying the ETag the client holds; it is reported as
 * the 304 it was. Elsewhere (Node, React Native) nothing caches: the client's own
 * `If-None-Match` goes out, with `no-store` so that no cache can turn a 304 into a 200
 * (where the runtime has the field).
 */
export const fetchTransport: HttpTransport = async (request) => {
  const { 'if-none-match': etag, ...headers } = request.headers;
  const scope = globalThis as { document?: unknown; importScripts?: unknown };
  // Pages and workers (module workers have an `importScripts` too): all the browser build serves.
  const browser = typeof __FLAGPLANE_BROWSER__ != 'undefined' || scope.document || scope.importScripts;
  try {
    // `fetch` ignores the extra `url` member.
    const response = await fetch(request.url, browser ? { ...request, headers } : { ...request, cache: noStore });
    const header = (name: string) => response.headers.get(name);
    // A 304's body is never read: the body of a revalidated 200 is left as it is.
    const status = browser && etag && header('etag') === etag ? 304 : response.status;
    return { kind: 'response', status, header, body: await response.text() };
  } catch (cause) {
    if (request.signal.aborted) return { kind: 'aborted' };
    // Pages have no server render to end (the browser build leaves the check out): a browser
    // that cancels a request fails it, and it is retried.
    if (typeof __FLAGPLANE_BROWSER__ == 'undefined' && !browser && endedByFramework(cause)) return { kind: 'aborted', cause };
    // Rejected before any I/O: sent again, without the field.
    if (typeof __FLAGPLANE_BROWSER__ == 'undefined' && noStore && /'cache'/.test(cause as string)) return (noStore = undefined), fetchTransport(request);
    // Chromium fails the requests of a page that goes away just before `pagehide`, and an
    // app's listener may run before the client's: answering a task later lets the client see
    // the page go first. A page that is gone never runs this task; that is fine too.
    if (browser) await new Promise((resolve) => setTimeout(resolve));
    return { kind: 'network-error', cause };
  }
};
