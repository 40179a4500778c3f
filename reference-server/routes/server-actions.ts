import { RouteError } from '../http/responses';
import { isRecord } from '../../src/shared/guards';
import { generateKey } from '../http/sdk-keys';
import { flagViolation } from '../validation/flag';
import { checkSnapshotStructure } from '../validation/snapshot-structure';
import type { ControlChange, ControlStore, PublishOutcome } from '../stores/contracts';
import type { WorkingCopy } from '../stores/working-copy';
import { applyChange } from '../stores/working-copy';
import { withFlag } from '../stores/snapshot-json';
import { jsonCopy, storedFlags } from './stored-json';
import type { KeyKind, KeyRecord, StoredTraits } from '../stores/records';
import type { StreamGateway } from '../stream/gateway';
import { CLOSE_CODES } from '../stream/messages';

/**
 * What the admin API and the programmatic API can do; both share these checks. Each write goes
 * to the control store first, then to this instance's working copy and its streams. In memory
 * the store is the working copy, so the write has applied when the call returns.
 */
export interface ServerActions {
  /** `owned`: the snapshot was parsed from a request body and nobody else holds it, so it is stored without a copy. */
  publish(environmentId: string, snapshot: unknown, owned?: boolean): Promise<{ environmentId: string; version: number }>;
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

/**
 * The flag to store under the edited key, given the one stored there now (`undefined` when
 * there is none) and the snapshot's `schemaVersion`; `undefined` removes the flag.
 */
type FlagEdit = (stored: unknown, schemaVersion: number) => unknown;

/**
 * Publishes the current snapshot with one flag changed as the next version — only if no other
 * write (of any instance) came between the read and the store; otherwise it reads again. The
 * first read is this instance's working copy (no engine round trip, nothing parsed); after a
 * conflict, the control store itself. Only the edited flag is checked and serialised: every
 * other flag object, and so its JSON (stores/snapshot-json.ts), is shared with the version
 * before. `commit` applies the outcome here and returns its version.
 */
function createFlagEditor(working: WorkingCopy, control: ControlStore, commit: (outcome: PublishOutcome, environmentId: string) => number) {
  const inTurn = editQueue();
  const latest = (environmentId: string, attempt: number) =>
    attempt === 0 ? Promise.resolve(working.environments.current(environmentId)) : control.current(environmentId);
  const editLoop = async (environmentId: string, key: string, mustExist: boolean, edit: FlagEdit): Promise<FlagChange> => {
    for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt += 1) {
      const current = await latest(environmentId, attempt);
      if (!current) throw new Error(`environment "${environmentId}" has no current snapshot`);
      const exists = Object.hasOwn(current.flags, key);
      if (mustExist && !exists) throw new RouteError(404, 'not_found', `environment "${environmentId}" has no flag "${key}"`);
      const flag = edit(exists ? current.flags[key] : undefined, current.schemaVersion);
      const { version: _version, ...envelope } = current;
      const outcome = await control.publish(environmentId, { ...envelope, flags: withFlag(current.flags, key, flag) }, current.version, key);
      if (outcome.kind !== 'conflict') return { environmentId, version: commit(outcome, environmentId), key, flag };
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
  const editor = createFlagEditor(working, control, committed);
  const editFlags = async (environmentId: string, key: string, mustExist: boolean, edit: FlagEdit) => {
    requireEnvironment(environmentId);
    return editor(environmentId, key, mustExist, edit);
  };

  return {
    async publish(environmentId, snapshot, owned = false) {
      requireEnvironment(environmentId);
      const check = checkSnapshotStructure(snapshot);
      if (!check.ok) {
        throw new RouteError(400, 'invalid_request', `${check.path || 'the snapshot'} ${check.problem}`, check.path || undefined);
      }
      const { flags, ...envelope } = check.snapshot;
      const stored = storedFlags(flags, working.environments.current(environmentId)?.flags, owned);
      const outcome = await control.publish(environmentId, { ...jsonCopy(envelope, 'the snapshot'), flags: stored, environmentId });
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
    putFlag: (environmentId, key, flag) => editFlags(environmentId, key, false, (_stored, schemaVersion) => checkedFlag(flag, schemaVersion)),
    patchFlag: (environmentId, key, members) =>
      editFlags(environmentId, key, true, (stored, schemaVersion) => {
        if (!isRecord(members)) throw new RouteError(400, 'invalid_request', 'the body must be a JSON object of the flag members to change');
        return checkedFlag({ ...(stored as object), ...members }, schemaVersion);
      }),
    async deleteFlag(environmentId, key) {
      const { version } = await editFlags(environmentId, key, true, () => undefined);
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
