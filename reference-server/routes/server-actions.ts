import { RouteError } from '../http/responses';
import { isRecord } from '../../src/shared/guards';
import { generateKey } from '../http/sdk-keys';
import { flagViolation } from '../validation/flag';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../validation/json-depth';
import { checkSnapshotStructure } from '../validation/snapshot-structure';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { ControlChange, ControlStore, PublishOutcome } from '../stores/contracts';
import type { WorkingCopy } from '../stores/working-copy';
import { applyChange } from '../stores/working-copy';
import type { KeyKind, KeyRecord, StoredTraits } from '../stores/records';
import type { StreamGateway } from '../stream/gateway';
import { CLOSE_CODES } from '../stream/messages';

/**
 * What the admin API and the programmatic API can do; both share these checks. Each write goes
 * to the control store first, then to this instance's working copy and its streams. In memory
 * the store is the working copy, so the write has applied when the call returns.
 */
export interface ServerActions {
  publish(environmentId: string, snapshot: unknown): Promise<{ environmentId: string; version: number }>;
  resync(environmentId: string): Promise<{ environmentId: string; notified: number }>;
  createKey(environmentId: string, kind: unknown): Promise<KeyRecord>;
  revokeKey(key: string): Promise<void>;
  setTraits(environmentId: string, userId: string, traits: unknown): Promise<{ userId: string; traits: StoredTraits }>;
  /** Creates or replaces one flag, checked against schema 1, as a new version. */
  putFlag(environmentId: string, key: string, flag: unknown): Promise<FlagChange>;
  /** Merges `members` into one flag's top-level members, checked against schema 1, as a new version. */
  patchFlag(environmentId: string, key: string, members: unknown): Promise<FlagChange>;
  /** Removes one flag, as a new version. */
  deleteFlag(environmentId: string, key: string): Promise<{ environmentId: string; version: number; key: string }>;
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
 * cannot hold (a BigInt, a cycle) or nested deeper than `MAX_JSON_DEPTH` is a 400, and nothing
 * moves.
 */
function jsonCopy<T>(value: T, what: string): T {
  let copy: T;
  try {
    copy = JSON.parse(JSON.stringify(value)) as T;
  } catch (error) {
    throw new RouteError(400, 'invalid_request', `${what} cannot be stored as JSON: ${(error as Error).message}`);
  }
  if (nestsDeeperThan(copy, MAX_JSON_DEPTH)) throw new RouteError(400, 'invalid_request', `${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return copy;
}

/** protocol.md §9: flag keys are identifiers, as in events. */
const FLAG_KEY_LIMIT = 256;

/** How many times a flag edit re-reads the current snapshot when another instance wrote first. */
const EDIT_ATTEMPTS = 16;

/** Runs each environment's edits one after another, so they race only with other instances'. */
function editQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(environmentId: string, work: () => Promise<T>): Promise<T> => {
    const result = (tails.get(environmentId) ?? Promise.resolve()).then(work);
    const tail = result.catch(() => undefined);
    tails.set(environmentId, tail);
    void tail.then(() => {
      if (tails.get(environmentId) === tail) tails.delete(environmentId);
    });
    return result;
  };
}

/** Changes a copy of a snapshot's flags; `schemaVersion` is the snapshot's. */
type FlagEdit = (flags: Record<string, unknown>, schemaVersion: number) => void;

/**
 * Publishes the current snapshot with an edit applied to a copy of its flags, as the next
 * version — only if no other write (of any instance) came between the read and the store;
 * otherwise it reads again. `commit` applies the outcome here and returns its version.
 */
function createFlagEditor(control: ControlStore, commit: (outcome: PublishOutcome, environmentId: string) => number) {
  const inTurn = editQueue();
  const editLoop = async (environmentId: string, key: string, mustExist: boolean, edit: FlagEdit): Promise<FlagChange> => {
    for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt += 1) {
      const current = await control.current(environmentId);
      if (!current) throw new Error(`environment "${environmentId}" has no current snapshot`);
      const flags: Record<string, unknown> = { ...current.flags };
      if (mustExist && !Object.hasOwn(flags, key)) throw new RouteError(404, 'not_found', `environment "${environmentId}" has no flag "${key}"`);
      edit(flags, current.schemaVersion);
      const { version: _version, ...envelope } = current;
      const outcome = await control.publish(environmentId, { ...envelope, flags: flags as FlagSnapshot['flags'] }, current.version);
      if (outcome.kind !== 'conflict') return { environmentId, version: commit(outcome, environmentId), key, flag: flags[key] };
    }
    throw new Error(`environment "${environmentId}" kept changing: ${EDIT_ATTEMPTS} attempts to edit flag "${key}" lost the race`);
  };
  return async (environmentId: string, key: string, mustExist: boolean, edit: FlagEdit): Promise<FlagChange> => {
    if (key.length > FLAG_KEY_LIMIT) throw new RouteError(400, 'invalid_request', `a flag key has at most ${FLAG_KEY_LIMIT} characters`, 'key');
    return inTurn(environmentId, () => editLoop(environmentId, key, mustExist, edit));
  };
}

/** A flag as it is stored: a JSON copy, checked against schema 1 when the snapshot is of schema 1. */
function checkedFlag(flag: unknown, schemaVersion: number): unknown {
  if (!isRecord(flag)) throw new RouteError(400, 'invalid_request', 'the flag must be a JSON object');
  const stored = jsonCopy(flag, 'the flag');
  // Schema 1 is the one this server knows; a snapshot of another schema takes its flags as given.
  const violation = schemaVersion === 1 ? flagViolation(stored) : undefined;
  if (violation) {
    throw new RouteError(400, 'invalid_request', `${violation.path || 'the flag'} ${violation.problem}`, violation.path || undefined);
  }
  return stored;
}

export interface ServerActionDeps {
  /** This instance's working copy, read by the request paths. */
  working: WorkingCopy;
  /** Where writes go first: the working copy itself in memory, Redis when shared. */
  control: ControlStore;
  gateway: StreamGateway;
}

export function createServerActions({ working, control, gateway }: ServerActionDeps): ServerActions {
  const requireEnvironment = (environmentId: string) => {
    const environment = working.environments.get(environmentId);
    if (!environment) throw new RouteError(404, 'not_found', `unknown environment "${environmentId}"`);
    return environment;
  };
  const committed = (outcome: PublishOutcome, environmentId: string): number => {
    if (outcome.kind === 'unknown-environment') throw new RouteError(404, 'not_found', `unknown environment "${environmentId}"`);
    if (outcome.kind === 'conflict') throw new Error(`environment "${environmentId}" changed during the write`);
    working.environments.put(outcome.snapshot);
    // The version this write made: in memory, later writes may already have applied. The
    // answer does not wait for the last stream to be told (the fan-out yields as it goes).
    void gateway.notifyUpdated(environmentId, outcome.snapshot.version);
    return outcome.snapshot.version;
  };
  const editor = createFlagEditor(control, committed);
  const editFlags = async (environmentId: string, key: string, mustExist: boolean, edit: FlagEdit) => {
    requireEnvironment(environmentId);
    return editor(environmentId, key, mustExist, edit);
  };

  return {
    async publish(environmentId, snapshot) {
      requireEnvironment(environmentId);
      const check = checkSnapshotStructure(snapshot);
      if (!check.ok) {
        throw new RouteError(400, 'invalid_request', `${check.path || 'the snapshot'} ${check.problem}`, check.path || undefined);
      }
      const outcome = await control.publish(environmentId, { ...jsonCopy(check.snapshot, 'the snapshot'), environmentId });
      return { environmentId, version: committed(outcome, environmentId) };
    },
    async resync(environmentId) {
      requireEnvironment(environmentId);
      await control.announceResync(environmentId);
      return { environmentId, notified: await gateway.notifyResync(environmentId, 'operator') };
    },
    async createKey(environmentId, kind) {
      requireEnvironment(environmentId);
      if (kind !== 'server' && kind !== 'client') {
        throw new RouteError(400, 'invalid_request', 'kind must be "server" or "client"', 'kind');
      }
      const record = { key: generateKey(kind as KeyKind), kind: kind as KeyKind, environmentId };
      if (!(await control.addKey(record))) throw new Error('a freshly generated key exists already');
      applyChange(working, { kind: 'key-added', record });
      return working.keys.get(record.key) ?? { ...record, revoked: false };
    },
    async revokeKey(key) {
      if (!(await control.revokeKey(key))) throw new RouteError(404, 'not_found', 'unknown key');
      applyChange(working, { kind: 'key-revoked', key });
      gateway.closeKey(key, CLOSE_CODES.revoked, 'the SDK key has been revoked');
    },
    async setTraits(environmentId, userId, traits) {
      requireEnvironment(environmentId);
      if (userId.length === 0) throw new RouteError(400, 'invalid_request', 'userId must not be empty', 'userId');
      if (!isRecord(traits)) throw new RouteError(400, 'invalid_request', 'the traits must be a JSON object');
      const stored = jsonCopy(traits as StoredTraits, 'the traits');
      await control.setTraits(environmentId, userId, stored);
      applyChange(working, { kind: 'traits-set', environmentId, userId, traits: stored });
      return { userId, traits: working.traits.get(environmentId, userId) ?? {} };
    },
    putFlag: (environmentId, key, flag) =>
      editFlags(environmentId, key, false, (flags, schemaVersion) => {
        flags[key] = checkedFlag(flag, schemaVersion);
      }),
    patchFlag: (environmentId, key, members) =>
      editFlags(environmentId, key, true, (flags, schemaVersion) => {
        if (!isRecord(members)) throw new RouteError(400, 'invalid_request', 'the body must be a JSON object of the flag members to change');
        flags[key] = checkedFlag({ ...(flags[key] as object), ...members }, schemaVersion);
      }),
    async deleteFlag(environmentId, key) {
      const { version } = await editFlags(environmentId, key, true, (flags) => {
        delete flags[key];
      });
      return { environmentId, version, key };
    },
  };
}

/** Applies a change another instance made to this instance's working copy, and tells its streams. */
export function applyRemoteChange(working: WorkingCopy, gateway: StreamGateway, change: ControlChange): void {
  if (change.kind === 'published') {
    // An older version arriving late moves nothing, so nobody is told.
    if (working.environments.put(change.snapshot)) void gateway.notifyUpdated(change.environmentId, change.snapshot.version);
    return;
  }
  applyChange(working, change);
  if (change.kind === 'key-revoked') gateway.closeKey(change.key, CLOSE_CODES.revoked, 'the SDK key has been revoked');
  else if (change.kind === 'resync') void gateway.notifyResync(change.environmentId, 'operator');
}
