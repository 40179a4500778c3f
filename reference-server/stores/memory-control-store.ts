import type { ControlSeed, ControlState, ControlStore } from './contracts';
import type { WorkingCopy, WorkingCopyBounds } from './working-copy';
import { stateFromSeed, workingCopyFrom } from './working-copy';

/** The default control store: the working copy itself, so every write applies before the call returns. */
export interface MemoryControlStore extends ControlStore {
  readonly engine: 'memory';
  readonly working: WorkingCopy;
}

const EMPTY: ControlState = { environments: [], keys: [], traits: [] };

export function createMemoryControlStore(bounds?: WorkingCopyBounds): MemoryControlStore {
  let working = workingCopyFrom(EMPTY, bounds);
  const resolved = <T>(value: T) => Promise.resolve(value);
  return {
    engine: 'memory',
    get working() {
      return working;
    },
    seedIfEmpty(seed: ControlSeed) {
      if (working.environments.list().length > 0) return resolved(false);
      working = workingCopyFrom(stateFromSeed(seed), bounds);
      return resolved(true);
    },
    load() {
      const traits = [] as ControlState['traits'];
      for (const { id } of working.environments.list()) {
        for (const [userId, value] of working.traits.entries(id)) traits.push({ environmentId: id, userId, traits: value });
      }
      return resolved({
        environments: working.environments.list().map(({ id, kind, kv }) => ({ id, kind, current: kv.current, snapshots: [...kv.snapshots.values()] })),
        keys: working.keys.list().map((record) => ({ ...record })),
        traits,
      });
    },
    current: (environmentId) => resolved(working.environments.current(environmentId)),
    publish(environmentId, draft, basedOn) {
      const record = working.environments.get(environmentId);
      if (!record) return resolved({ kind: 'unknown-environment' as const });
      if (basedOn !== undefined && basedOn !== record.kv.current) return resolved({ kind: 'conflict' as const, current: record.kv.current });
      const version = working.environments.advance(environmentId, draft);
      const snapshot = record.kv.snapshots.get(version);
      if (!snapshot) throw new Error(`version ${version} of "${environmentId}" was not stored`);
      return resolved({ kind: 'published' as const, snapshot });
    },
    addKey(record) {
      if (working.keys.get(record.key)) return resolved(false);
      working.keys.add(record);
      return resolved(true);
    },
    revokeKey: (key) => resolved(working.keys.revoke(key)),
    setTraits(environmentId, userId, traits) {
      working.traits.set(environmentId, userId, traits);
      return resolved(undefined);
    },
    announceResync: () => resolved(undefined),
    // No other instance shares this store: nothing to hear.
    subscribe: () => () => undefined,
    ping: () => resolved(undefined),
    close: () => resolved(undefined),
  };
}
