import type { FlagSnapshot } from '../snapshot/snapshot-types';
import { viewSources } from './view-sources';

/**
 * The snapshot `client` serves now — every flag its key was served, with its rules,
 * `variationKeys` and `metadata` — or `undefined` before it has one, or for an object
 * neither `createClient` nor `createTestClient` made. For tools that show what a flag is
 * rather than what it serves (the OpenFeature providers read a flag's `metadata` and rules
 * here). The client's own object: read it, never change it. A standalone function, like
 * `forContext`: a bundle that does not call it leaves it out.
 */
export function heldSnapshot(client: object): FlagSnapshot | undefined {
  return viewSources.get(client)?.scope.snapshot ?? undefined;
}
