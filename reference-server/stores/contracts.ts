/**
 * The stores of the reference server, and the words for them (one word, one thing):
 *
 * - A **store** holds one kind of server data behind a narrow contract; an **engine** is
 *   where a store keeps it: memory, Redis or Postgres (its `engine` member; EngineError when
 *   one fails). The protocol names three stores, each with one contract below:
 * - The **control store** ({@link ControlStore}): environments with their snapshots and
 *   `current` version, SDK keys with their revocations, and traits; in memory, or on Redis
 *   shared by every instance, which hear each other's changes.
 * - The **identify queue** ({@link IdentifyQueueStore}): identify rows, which consumers claim
 *   and acknowledge; in memory, or on Postgres.
 * - The **analytics store** ({@link AnalyticsStore}): production evaluation events; in memory,
 *   or on Postgres.
 * - The **working copy** (working-copy.ts): this instance's copy of the control store, read
 *   synchronously by the request paths and the stream: its environment, key and trait stores.
 *   Writes go to the control store first, then to the working copy. On the memory engine the
 *   control store is the working copy.
 * - A **log** (bounded-log.ts): entries in memory in arrival order, bounded by the limits: the
 *   identify log and the analytics event log behind the memory engine, and the diagnostics,
 *   which stay in memory whatever the engines.
 * - {@link ReferenceServerStores} (`server.stores`) is what one instance holds in memory, for
 *   tests to read; open-stores.ts opens an instance's stores on their engines.
 */
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { LogPage } from './bounded-log';
import type { EnvironmentStore } from './environment-store';
import type { EventLog } from './event-log';
import type { IdentifyLog } from './identify-log';
import type { KeyStore } from './key-store';
import type { ClaimedRow, EnvironmentKind, Evictions, IdentifyRow, KeyRecord, StoredEvent, StoredTraits } from './records';
import type { TraitStore } from './trait-store';

/**
 * Resolves once the store's engine answers a trivial command; rejects with an EngineError when
 * it cannot (memory resolves at once). Has no timeout of its own (the caller races it, see
 * readiness.ts); concurrent calls share the one in flight, so an engine that hangs or is down
 * is never sent a pile of probes or asked for a pile of connections.
 */
export type EnginePing = () => Promise<void>;

/** Everything the control store holds, as {@link ControlStore.load} reads it. */
export interface ControlState {
  environments: Array<{ id: string; kind: EnvironmentKind; current: number; snapshots: FlagSnapshot[] }>;
  keys: KeyRecord[];
  traits: Array<{ environmentId: string; userId: string; traits: StoredTraits }>;
}

/** What a config seeds into an empty control store. */
export interface ControlSeed {
  environments: Array<{ id: string; kind: EnvironmentKind; snapshot: FlagSnapshot }>;
  keys: Array<Omit<KeyRecord, 'revoked'>>;
  traits: Array<{ environmentId: string; userId: string; traits: StoredTraits }>;
}

export type PublishOutcome =
  | { kind: 'published'; snapshot: FlagSnapshot }
  | { kind: 'conflict'; current: number }
  | { kind: 'unknown-environment' };

/** A change another instance made, announced to every instance sharing the store. */
export type ControlChange =
  | { kind: 'published'; environmentId: string; snapshot: FlagSnapshot }
  | { kind: 'key-added'; record: Omit<KeyRecord, 'revoked'> }
  | { kind: 'key-revoked'; key: string }
  | { kind: 'traits-set'; environmentId: string; userId: string; traits: StoredTraits }
  | { kind: 'resync'; environmentId: string };

/**
 * Environments with their snapshots and `current` version, SDK keys with their revocations,
 * and traits: the state every instance serves from. In memory by default, on Redis when shared.
 */
export interface ControlStore {
  readonly engine: 'memory' | 'redis';
  /** Writes `seed` only when the store holds nothing yet; true when it did. */
  seedIfEmpty(seed: ControlSeed): Promise<boolean>;
  load(): Promise<ControlState>;
  /** The snapshot `current` points at, read from the store itself. */
  current(environmentId: string): Promise<FlagSnapshot | undefined>;
  /**
   * Stores `draft` as version `current + 1` and advances `current`, atomically across every
   * instance. With `basedOn`, only if `current` is still that version (else a conflict). The
   * draft is handed over, not copied: it is what the outcome holds, and none of it may change.
   * `editedKey`: the draft differs from version `basedOn` in that flag only, so Redis may store
   * and announce that one flag, which the other instances apply to their copy of `basedOn`.
   */
  publish(environmentId: string, draft: Omit<FlagSnapshot, 'version'>, basedOn?: number, editedKey?: string): Promise<PublishOutcome>;
  /** False when the key exists already. */
  addKey(record: Omit<KeyRecord, 'revoked'>): Promise<boolean>;
  /** False for an unknown key. */
  revokeKey(key: string): Promise<boolean>;
  setTraits(environmentId: string, userId: string, traits: StoredTraits): Promise<void>;
  /** Tells the other instances' streams to resync. */
  announceResync(environmentId: string): Promise<void>;
  /** Calls `listener` with each change made through another store on the same data; returns the unsubscribe. */
  subscribe(listener: (change: ControlChange) => void): () => void;
  /** {@link EnginePing}: a Redis `PING` on the command connection. */
  ping: EnginePing;
  close(): Promise<void>;
}

/** The identify queue (protocol.md §4): producers append, consumers claim and acknowledge. */
export interface IdentifyQueueStore {
  readonly engine: 'memory' | 'postgres';
  append(rows: ReadonlyArray<Omit<IdentifyRow, 'id'>>): Promise<void>;
  /** The newest `limit` rows of the environment (every row without it), oldest first. */
  list(environmentId: string, limit?: number): Promise<IdentifyRow[]>;
  /** The newest `limit` rows of the environment older than row `before`, oldest first; `seq` is the row id. */
  page(environmentId: string, limit: number, before?: number): Promise<LogPage<IdentifyRow>>;
  /**
   * Claims up to `limit` of the oldest rows no one holds; a claim not acknowledged within
   * `leaseMs` lapses and the rows can be claimed again. Concurrent claims never share a row.
   */
  claim(environmentId: string, limit: number, leaseMs: number): Promise<ClaimedRow[]>;
  /** Deletes the rows (of the environment) with these ids; returns how many were deleted. */
  ack(environmentId: string, ids: readonly number[]): Promise<number>;
  /** {@link EnginePing}: `SELECT 1` on the pool. */
  ping: EnginePing;
  close(): Promise<void>;
}

/** Production evaluation events (protocol.md §4). */
export interface AnalyticsStore {
  readonly engine: 'memory' | 'postgres';
  append(events: readonly StoredEvent[]): Promise<void>;
  /** The newest `limit` events (every event without it), oldest first. */
  list(limit?: number): Promise<StoredEvent[]>;
  /** The newest `limit` events older than the cursor `before`, oldest first. */
  page(limit: number, before?: number): Promise<LogPage<StoredEvent>>;
  /** {@link EnginePing}: `SELECT 1` on the pool. */
  ping: EnginePing;
  close(): Promise<void>;
}

/** What one instance holds in memory: plain objects, readable by tests. */
export interface ReferenceServerStores {
  readonly environments: EnvironmentStore;
  readonly keys: KeyStore;
  readonly traits: TraitStore;
  readonly identifyQueue: IdentifyLog;
  /** Production `evaluation` events. */
  readonly analytics: EventLog;
  /** Every other event, staging evaluations included. */
  readonly diagnostics: EventLog;
  /** Counted as the limits evict and refuse. */
  readonly evictions: Evictions;
}
