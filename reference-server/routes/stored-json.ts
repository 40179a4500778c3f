import { RouteError } from '../http/responses';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../validation/json-depth';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { flagJson, rememberFlagJson } from '../stores/snapshot-json';

const notJson = (what: string, error: unknown) => new RouteError(400, 'invalid_request', `${what} cannot be stored as JSON: ${(error as Error).message}`);
const tooDeep = (what: string) => new RouteError(400, 'invalid_request', `${what} nests deeper than ${MAX_JSON_DEPTH} levels`);

/**
 * A JSON copy of what is to be stored, so that everything stored can be served: a value JSON
 * cannot hold (a BigInt, a cycle) or nested deeper than `MAX_JSON_DEPTH` is a 400, and nothing
 * moves.
 */
export function jsonCopy<T>(value: T, what: string): T {
  let copy: T;
  try {
    copy = JSON.parse(JSON.stringify(value)) as T;
  } catch (error) {
    throw notJson(what, error);
  }
  if (nestsDeeperThan(copy, MAX_JSON_DEPTH)) throw tooDeep(what);
  return copy;
}

/**
 * The flags of a whole snapshot as they are to be stored, checked as {@link jsonCopy} checks
 * the snapshot (a flag sits 3 levels deep in it), with the same messages. A flag whose JSON
 * equals that of the current version's flag under the same key is stored as that flag object:
 * a whole publish that changes a few flags shares the rest with the version before, in memory
 * as in bytes (stores/snapshot-json.ts). Every other flag is a JSON copy — or, when `owned`
 * (parsed from a request body, held by nobody else), stored as it is, which saves parsing it
 * twice; its JSON is remembered either way.
 */
export function storedFlags(flags: FlagSnapshot['flags'], previous: FlagSnapshot['flags'] | undefined, owned: boolean): FlagSnapshot['flags'] {
  const stored: Record<string, unknown> = {};
  for (const key of Object.keys(flags)) {
    const flag: unknown = flags[key];
    let json: string | undefined;
    try {
      json = JSON.stringify(flag);
    } catch (error) {
      throw notJson('the snapshot', error);
    }
    // What JSON leaves out of an object (undefined, a function) is left out here too.
    if (json === undefined) continue;
    const before: unknown = previous && Object.hasOwn(previous, key) ? previous[key] : undefined;
    if (before !== undefined && flagJson(before) === json) {
      stored[key] = before;
      continue;
    }
    const copy: unknown = owned ? flag : JSON.parse(json);
    if (nestsDeeperThan(copy, MAX_JSON_DEPTH - 2)) throw tooDeep('the snapshot');
    stored[key] = copy;
    rememberFlagJson(copy, json);
  }
  return stored as FlagSnapshot['flags'];
}
