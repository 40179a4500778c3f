import { HttpError } from './http-responses';
import { generateKey } from './sdk-keys';
import { checkSnapshotStructure } from './snapshot-structure';
import type { KeyKind, KeyRecord, ReferenceServerStores, Traits } from './stores';
import type { StreamGateway } from './stream';
import { CLOSE_CODES } from './stream-messages';

/** What the admin API and the programmatic API can do; both share these checks. */
export interface ServerActions {
  publish(environmentId: string, snapshot: unknown): { environmentId: string; version: number };
  resync(environmentId: string): { environmentId: string; notified: number };
  createKey(environmentId: string, kind: unknown): KeyRecord;
  revokeKey(key: string): void;
  setTraits(environmentId: string, userId: string, traits: unknown): { userId: string; traits: Traits };
}

/**
 * A JSON copy of what is to be stored, so that everything stored can be served: a value JSON
 * cannot hold (a BigInt, a cycle, nesting deeper than the stack) is a 400, and nothing moves.
 */
function jsonCopy<T>(value: T, what: string): T {
  try {
    return JSON.parse(JSON.stringify(value)) as T;
  } catch (error) {
    throw new HttpError(400, 'invalid_request', `${what} cannot be stored as JSON: ${(error as Error).message}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function createServerActions(stores: ReferenceServerStores, gateway: StreamGateway): ServerActions {
  const requireEnvironment = (environmentId: string) => {
    const environment = stores.environments.get(environmentId);
    if (!environment) throw new HttpError(404, 'not_found', `unknown environment "${environmentId}"`);
    return environment;
  };

  return {
    publish(environmentId, snapshot) {
      requireEnvironment(environmentId);
      const check = checkSnapshotStructure(snapshot);
      if (!check.ok) {
        throw new HttpError(400, 'invalid_request', `${check.path || 'the snapshot'} ${check.problem}`, check.path || undefined);
      }
      const version = stores.environments.advance(environmentId, { ...jsonCopy(check.snapshot, 'the snapshot'), environmentId });
      gateway.notifyUpdated(environmentId);
      return { environmentId, version };
    },
    resync(environmentId) {
      requireEnvironment(environmentId);
      return { environmentId, notified: gateway.notifyResync(environmentId, 'operator') };
    },
    createKey(environmentId, kind) {
      requireEnvironment(environmentId);
      if (kind !== 'server' && kind !== 'client') {
        throw new HttpError(400, 'invalid_request', 'kind must be "server" or "client"', 'kind');
      }
      return stores.keys.add({ key: generateKey(kind as KeyKind), kind: kind as KeyKind, environmentId });
    },
    revokeKey(key) {
      if (!stores.keys.revoke(key)) throw new HttpError(404, 'not_found', 'unknown key');
      gateway.closeKey(key, CLOSE_CODES.revoked, 'the SDK key has been revoked');
    },
    setTraits(environmentId, userId, traits) {
      requireEnvironment(environmentId);
      if (userId.length === 0) throw new HttpError(400, 'invalid_request', 'userId must not be empty', 'userId');
      if (!isObject(traits)) throw new HttpError(400, 'invalid_request', 'the traits must be a JSON object');
      stores.traits.set(environmentId, userId, jsonCopy(traits as Traits, 'the traits'));
      return { userId, traits: stores.traits.get(environmentId, userId) ?? {} };
    },
  };
}
