import type { FlagSnapshot, JsonValue } from '../src/snapshot/snapshot-types';

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
  readonly rows: readonly IdentifyRow[];
  append(row: Omit<IdentifyRow, 'id'>): IdentifyRow;
  forEnvironment(environmentId: string): IdentifyRow[];
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
  readonly events: readonly StoredEvent[];
  append(event: StoredEvent): void;
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
}

export interface InitialEnvironment {
  id: string;
  kind: EnvironmentKind;
  snapshot: FlagSnapshot;
}

export function createEnvironmentStore(initial: readonly InitialEnvironment[]): EnvironmentStore {
  const records = new Map<string, EnvironmentRecord>();
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
      return version;
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

export function createTraitStore(initial: Readonly<Record<string, Record<string, Traits>>> = {}): TraitStore {
  const byEnvironment = new Map<string, Map<string, Traits>>();
  const store: TraitStore = {
    get: (environmentId, userId) => byEnvironment.get(environmentId)?.get(userId),
    set(environmentId, userId, traits) {
      let users = byEnvironment.get(environmentId);
      if (!users) {
        users = new Map();
        byEnvironment.set(environmentId, users);
      }
      users.set(userId, structuredClone(traits));
    },
    entries: (environmentId) => [...(byEnvironment.get(environmentId) ?? [])],
  };
  for (const [environmentId, users] of Object.entries(initial)) {
    for (const [userId, traits] of Object.entries(users)) store.set(environmentId, userId, traits);
  }
  return store;
}

export function createIdentifyQueue(): IdentifyQueue {
  const rows: IdentifyRow[] = [];
  let lastId = 0;
  return {
    rows,
    append(row) {
      lastId += 1;
      const stored: IdentifyRow = { id: lastId, ...row };
      rows.push(stored);
      return stored;
    },
    forEnvironment: (environmentId) => rows.filter((row) => row.environmentId === environmentId),
    remove(ids) {
      let kept = 0;
      for (const row of rows) if (!ids.has(row.id)) rows[kept++] = row;
      const removed = rows.length - kept;
      rows.length = kept;
      return removed;
    },
  };
}

export function createEventLog(): EventLog {
  const events: StoredEvent[] = [];
  return {
    events,
    append(event) {
      events.push(event);
    },
  };
}
