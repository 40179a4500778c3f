import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { EnvironmentKind } from './records';

/** Every published snapshot of one environment by version, and the `current` pointer. */
export interface SnapshotKv {
  readonly snapshots: Map<number, FlagSnapshot>;
  current: number;
}

export interface EnvironmentRecord {
  readonly id: string;
  readonly kind: EnvironmentKind;
  readonly kv: SnapshotKv;
}

/** The environments of the working copy, with their snapshots. */
export interface EnvironmentStore {
  get(id: string): EnvironmentRecord | undefined;
  list(): EnvironmentRecord[];
  /** The snapshot `current` points at. */
  current(id: string): FlagSnapshot | undefined;
  /**
   * Stores the snapshot under `current + 1`, advances `current`, and returns the new version.
   * The snapshot is stored as given, not copied: the caller hands over a private copy whose flag
   * objects are never changed afterwards (they are shared with the versions made from it).
   */
  advance(id: string, snapshot: Omit<FlagSnapshot, 'version'>): number;
  /**
   * Stores a snapshot at its own version (made by another instance), moving `current` only
   * forward; whether `current` moved. Replays and reorders change nothing.
   */
  put(snapshot: FlagSnapshot): boolean;
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
      record.kv.snapshots.set(version, { ...snapshot, version, environmentId: id });
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
