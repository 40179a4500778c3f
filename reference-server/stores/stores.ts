import type { FlagSnapshot, JsonValue } from '../../src/snapshot/snapshot-types';
import { createBoundedLog, type LogPage } from './bounded-log';

/** `production` evaluations go to analytics; `staging` ones never do (protocol.md §4). */
export type EnvironmentKind = 'production' | 'staging';

/** `client` keys see only `clientSide: true` flags (protocol.md §1). */
export type KeyKind = 'server' | 'client';

export type Traits = { [name: string]: JsonValue };

/** The key-value store of one environment: every published snapshot by version, and the `current` pointer. */
export interface SnapshotKv {
  readonly snapshots: Map<number, FlagSnapshot>;
  current: number;
}

export interface EnvironmentRecord {
  readonly id: string;
  readonly kind: EnvironmentKind;
  readonly kv: SnapshotKv;
}

export interface EnvironmentStore {
  get(id: string): EnvironmentRecord | undefined;
  list(): EnvironmentRecord[];
  /** The snapshot `current` points at. */
  current(id: string): FlagSnapshot | undefined;
  /** Stores the snapshot under `current + 1`, advances `current`, and returns the new version. */
  advance(id: string, snapshot: Omit<FlagSnapshot, 'version'>): number;
  /**
   * Stores a snapshot at its own version (made by another instance), moving `current` only
   * forward; whether `current` moved. Replays and reorders change nothing.
   */
  put(snapshot: FlagSnapshot): boolean;
}

export interface KeyRecord {
  readonly key: string;
  readonly kind: KeyKind;
  readonly environmentId: string;
  revoked: boolean;
}

export interface KeyStore {
  /** The record of an active key; revoked and unknown keys give `undefined`. */
  findActive(key: string): KeyRecord | undefined;
  get(key: string): KeyRecord | undefined;
  add(record: Omit<KeyRecord, 'revoked'>): KeyRecord;
  revoke(key: string): boolean;
  list(environmentId?: string): KeyRecord[];
}

/** The per-user trait overlay of each environment (protocol.md §4, GET /sdk/v1/identity). */
export interface TraitStore {
  get(environmentId: string, userId: string): Traits | undefined;
  set(environmentId: string, userId: string, traits: Traits): void;
  /** Every user of the environment with their traits. */
  entries(environmentId: string): Array<[userId: string, traits: Traits]>;
}

/** One row of the identify queue, as a relational table would hold it. */
export interface IdentifyRow {
  readonly id: number;
  readonly environmentId: string;
  readonly userId: string;
  readonly traits: Traits;
  readonly receivedAt: string;
}

export interface IdentifyQueue {
  /** Every row kept, oldest first. */
  readonly rows: readonly IdentifyRow[];
  append(row: Omit<IdentifyRow, 'id'>): IdentifyRow;
  forEnvironment(environmentId: string): IdentifyRow[];
  /** The newest `limit` rows of the environment older than row `before` (all without it), oldest first. */
  page(environmentId: string, limit: number, before?: number): LogPage<IdentifyRow>;
  /** Removes the rows with these ids (a consumer acknowledged them); returns how many it removed. */
  remove(ids: ReadonlySet<number>): number;
}

/** A diagnostic event as received, plus where and when it arrived. */
export interface StoredEvent {
  readonly type: string;
  readonly environmentId: string;
  readonly receivedAt: string;
  readonly [member: string]: unknown;
}

export interface EventLog {
  /** Every event kept, oldest first. */
  readonly events: readonly StoredEvent[];
  append(event: StoredEvent): void;
  /** The newest `limit` events older than the cursor `before` (all without it), oldest first. */
  page(limit: number, before?: number): LogPage<StoredEvent>;
}

/** What the limits evicted or refused since the start, shown by GET /admin/v1/diagnostics. */
export interface Evictions {
  events: number;
  identifyRows: number;
  snapshotVersions: number;
  traitUsers: number;
  streamsRefused: number;
  requestsLimited: number;
}

/** Every store of a reference server: plain in-memory objects, readable by tests. */
export interface ReferenceServerStores {
  readonly environments: EnvironmentStore;
  readonly keys: KeyStore;
  readonly traits: TraitStore;
  readonly identifyQueue: IdentifyQueue;
  /** Production `evaluation` events. */
  readonly analytics: EventLog;
  /** Every other event, staging evaluations included. */
  readonly diagnostics: EventLog;
  /** Counted as the limits evict and refuse. */
  readonly evictions: Evictions;
}

export interface InitialEnvironment {
  id: string;
  kind: EnvironmentKind;
  snapshot: FlagSnapshot;
}

/** `versionsKept`: snapshot versions kept per environment, the current one included; `onEvict` counts each one dropped. */
export function createEnvironmentStore(initial: readonly InitialEnvironment[], versionsKept = Infinity, onEvict = () => {}): EnvironmentStore {
  const records = new Map<string, EnvironmentRecord>();
  /** Drops the oldest versions past `versionsKept`, never the current one. */
  const trim = (kv: SnapshotKv) => {
    const versions = [...kv.snapshots.keys()].sort((a, b) => a - b);
    for (const old of versions) {
      if (kv.snapshots.size <= versionsKept) break;
      if (old === kv.current) continue;
      kv.snapshots.delete(old);
      onEvict();
    }
  };
  for (const env of initial) {
    const snapshot: FlagSnapshot = { ...structuredClone(env.snapshot), environmentId: env.id };
    const kv: SnapshotKv = { snapshots: new Map([[snapshot.version, snapshot]]), current: snapshot.version };
    records.set(env.id, { id: env.id, kind: env.kind, kv });
  }
  return {
    get: (id) => records.get(id),
    list: () => [...records.values()],
    current(id) {
      const kv = records.get(id)?.kv;
      return kv?.snapshots.get(kv.current);
    },
    advance(id, snapshot) {
      const record = records.get(id);
      if (!record) throw new Error(`unknown environment "${id}"`);
      const version = record.kv.current + 1;
      record.kv.snapshots.set(version, { ...structuredClone(snapshot), version, environmentId: id });
      record.kv.current = version;
      trim(record.kv);
      return version;
    },
    put(snapshot) {
      const record = records.get(snapshot.environmentId);
      if (!record) return false;
      const newer = snapshot.version > record.kv.current;
      record.kv.snapshots.set(snapshot.version, snapshot);
      if (newer) record.kv.current = snapshot.version;
      trim(record.kv);
      return newer;
    },
  };
}

export function createKeyStore(initial: readonly Omit<KeyRecord, 'revoked'>[]): KeyStore {
  const records = new Map<string, KeyRecord>();
  const store: KeyStore = {
    findActive(key) {
      const record = records.get(key);
      return record && !record.revoked ? record : undefined;
    },
    get: (key) => records.get(key),
    add(record) {
      if (records.has(record.key)) throw new Error(`duplicate key "${record.key}"`);
      const added: KeyRecord = { ...record, revoked: false };
      records.set(record.key, added);
      return added;
    },
    revoke(key) {
      const record = records.get(key);
      if (!record) return false;
      record.revoked = true;
      return true;
    },
    list: (environmentId) =>
      [...records.values()].filter((r) => environmentId === undefined || r.environmentId === environmentId),
  };
  for (const record of initial) store.add(record);
  return store;
}

/** `usersKept`: users with traits per environment; writing a full one drops the least recently written. */
export function createTraitStore(initial: Readonly<Record<string, Record<string, Traits>>> = {}, usersKept = Infinity, onEvict = () => {}): TraitStore {
  const byEnvironment = new Map<string, Map<string, Traits>>();
  const store: TraitStore = {
    get: (environmentId, userId) => byEnvironment.get(environmentId)?.get(userId),
    set(environmentId, userId, traits) {
      let users = byEnvironment.get(environmentId);
      if (!users) {
        users = new Map();
        byEnvironment.set(environmentId, users);
      }
      // Deleted first, so that the Map's order is the order of the last writes.
      users.delete(userId);
      users.set(userId, structuredClone(traits));
      for (const oldest of users.keys()) {
        if (users.size <= usersKept) break;
        users.delete(oldest);
        onEvict();
      }
    },
    entries: (environmentId) => [...(byEnvironment.get(environmentId) ?? [])],
  };
  for (const [environmentId, users] of Object.entries(initial)) {
    for (const [userId, traits] of Object.entries(users)) store.set(environmentId, userId, traits);
  }
  return store;
}

/** `rowsKept`: rows kept per environment; a full one drops its oldest row, counted by `onEvict`. */
export function createIdentifyQueue(rowsKept = Infinity, onEvict = () => {}): IdentifyQueue {
  const log = createBoundedLog<IdentifyRow>(rowsKept, onEvict);
  let next = 1;
  return {
    get rows() {
      return log.all();
    },
    append(row) {
      // The row's id is its sequence number in the log: the cursor of its pages.
      const stored: IdentifyRow = { id: next, ...row };
      next = log.append(row.environmentId, stored) + 1;
      return stored;
    },
    forEnvironment: (environmentId) => log.all((bucket) => bucket === environmentId),
    page: (environmentId, limit, before) => log.page(limit, before, (bucket) => bucket === environmentId),
    remove: (ids) => log.removeWhere((row) => ids.has(row.id)),
  };
}

/** `eventsKept`: events kept per environment and event type; older ones are dropped and counted by `onEvict`. */
export function createEventLog(eventsKept = Infinity, onEvict = () => {}): EventLog {
  const log = createBoundedLog<StoredEvent>(eventsKept, onEvict);
  return {
    get events() {
      return log.all();
    },
    append(event) {
      log.append(`${event.environmentId}\n${event.type}`, event);
    },
    page: (limit, before) => log.page(limit, before),
  };
}
