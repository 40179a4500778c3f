import { deepFreeze } from '../shared/deep-freeze';
import type { FlagSnapshot } from '../snapshot/snapshot-types';
import { viewSources } from './view-sources';

/** Per snapshot the client held: what it hands to pages, made once per version. */
const forPages = new WeakMap<FlagSnapshot, FlagSnapshot>();

/**
 * What a page's client starts from, taken from a client on the server: the snapshot `client`
 * holds, with only the flags marked `clientSide` — exactly what the environment's client key
 * is served, whatever key `client` has. Pass it to the browser's client as `bootstrap`, with
 * the context (and anonymous id) the server rendered for: its first render then evaluates
 * the same snapshot for the same context, so it shows what the server's HTML shows, and no
 * server-only flag reaches the page. `undefined` before `client` has a snapshot (the page's
 * client then fetches on its own), or for an object neither `createClient` nor
 * `createTestClient` made. Plain JSON, deeply frozen, and the same object until the client's
 * snapshot changes. A standalone function, like `forContext`: browser bundles leave it out.
 */
export function browserBootstrap(client: object): FlagSnapshot | undefined {
  const snapshot = viewSources.get(client)?.scope.snapshot;
  if (!snapshot) return undefined;
  let forPage = forPages.get(snapshot);
  if (!forPage) {
    const flags: FlagSnapshot['flags'] = {};
    for (const [key, flag] of Object.entries(snapshot.flags)) if (flag.clientSide === true) flags[key] = flag;
    forPage = deepFreeze(JSON.parse(JSON.stringify({ ...snapshot, flags })) as FlagSnapshot);
    forPages.set(snapshot, forPage);
  }
  return forPage;
}
