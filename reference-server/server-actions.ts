import { HttpError } from './http-responses';
import { generateKey } from './sdk-keys';
import { flagViolation } from './flag-validation';
import { checkSnapshotStructure } from './snapshot-structure';
import type { FlagSnapshot } from '../src/snapshot/snapshot-types';
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
  /** Creates or replaces one flag, checked against schema 1, as a new version. */
  putFlag(environmentId: string, key: string, flag: unknown): FlagChange;
  /** Merges `members` into one flag's top-level members, checked against schema 1, as a new version. */
  patchFlag(environmentId: string, key: string, members: unknown): FlagChange;
  /** Removes one flag, as a new version. */
  deleteFlag(environmentId: string, key: string): { environmentId: string; version: number; key: string };
}

/** What a change to one flag published. */
export interface FlagChange {
  environmentId: string;
  version: number;
  key: string;
  flag: unknown;
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

/** protocol.md §9: flag keys are identifiers, as in events. */
const FLAG_KEY_LIMIT = 256;

export function createServerActions(stores: ReferenceServerStores, gateway: StreamGateway): ServerActions {
  const requireEnvironment = (environmentId: string) => {
    const environment = stores.environments.get(environmentId);
    if (!environment) throw new HttpError(404, 'not_found', `unknown environment "${environmentId}"`);
    return environment;
  };

  /** The flags of the current snapshot, copied, and the flag `key` of them (404 if `mustExist` and absent). */
  const currentFlags = (environmentId: string, key: string, mustExist: boolean) => {
    requireEnvironment(environmentId);
    if (key.length > FLAG_KEY_LIMIT) throw new HttpError(400, 'invalid_request', `a flag key has at most ${FLAG_KEY_LIMIT} characters`, 'key');
    const current = stores.environments.current(environmentId);
    if (!current) throw new Error(`environment "${environmentId}" has no current snapshot`);
    const flags: Record<string, unknown> = { ...current.flags };
    if (mustExist && !Object.hasOwn(flags, key)) throw new HttpError(404, 'not_found', `environment "${environmentId}" has no flag "${key}"`);
    return { current, flags };
  };
  /**
   * Publishes the current snapshot with `flags` as the next version. Synchronous from the read
   * of the current snapshot to the store: no other change can come between (one version each).
   */
  const publishFlags = (environmentId: string, current: { schemaVersion: number }, flags: Record<string, unknown>) => {
    const { version: _version, ...envelope } = current as { version?: number; schemaVersion: number };
    const version = stores.environments.advance(environmentId, { ...(envelope as Omit<FlagSnapshot, 'version'>), flags: flags as FlagSnapshot['flags'] });
    gateway.notifyUpdated(environmentId);
    return version;
  };
  const checkedFlag = (flag: unknown, schemaVersion: number): unknown => {
    if (!isObject(flag)) throw new HttpError(400, 'invalid_request', 'the flag must be a JSON object');
    const stored = jsonCopy(flag, 'the flag');
    // Schema 1 is the one this server knows; a snapshot of another schema takes its flags as given.
    const violation = schemaVersion === 1 ? flagViolation(stored) : undefined;
    if (violation) {
      throw new HttpError(400, 'invalid_request', `${violation.path || 'the flag'} ${violation.problem}`, violation.path || undefined);
    }
    return stored;
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
    putFlag(environmentId, key, flag) {
      const { current, flags } = currentFlags(environmentId, key, false);
      flags[key] = checkedFlag(flag, current.schemaVersion);
      return { environmentId, version: publishFlags(environmentId, current, flags), key, flag: flags[key] };
    },
    patchFlag(environmentId, key, members) {
      const { current, flags } = currentFlags(environmentId, key, true);
      if (!isObject(members)) throw new HttpError(400, 'invalid_request', 'the body must be a JSON object of the flag members to change');
      flags[key] = checkedFlag({ ...(flags[key] as object), ...members }, current.schemaVersion);
      return { environmentId, version: publishFlags(environmentId, current, flags), key, flag: flags[key] };
    },
    deleteFlag(environmentId, key) {
      const { current, flags } = currentFlags(environmentId, key, true);
      delete flags[key];
      return { environmentId, version: publishFlags(environmentId, current, flags), key };
    },
  };
}
