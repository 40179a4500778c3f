import type { EnvironmentStore } from './environment-store';
import type { KeyStore } from './key-store';
import type { TraitStore } from './trait-store';
import { createEnvironmentStore } from './environment-store';
import { createKeyStore } from './key-store';
import { createTraitStore } from './trait-store';
import type { ControlChange, ControlSeed, ControlState } from './contracts';

/** The stores the request paths read synchronously: each instance's copy of the control store. */
export interface WorkingCopy {
  readonly environments: EnvironmentStore;
  readonly keys: KeyStore;
  readonly traits: TraitStore;
}

/** What a working copy keeps at most (http/limits.ts), and where it counts what it drops. */
export interface WorkingCopyBounds {
  snapshotVersions: number;
  traitUsers: number;
  onEvict(what: 'snapshotVersions' | 'traitUsers'): void;
}

export function workingCopyFrom(state: ControlState, bounds?: WorkingCopyBounds): WorkingCopy {
  const initial = state.environments.flatMap(({ id, kind, current, snapshots }) => {
    const snapshot = snapshots.find((s) => s.version === current);
    return snapshot ? [{ id, kind, snapshot }] : [];
  });
  const environments = createEnvironmentStore(initial, bounds?.snapshotVersions, () => bounds?.onEvict('snapshotVersions'));
  for (const { snapshots } of state.environments) for (const snapshot of snapshots) environments.put(snapshot);
  const keys = createKeyStore(state.keys.map(({ key, kind, environmentId }) => ({ key, kind, environmentId })));
  for (const record of state.keys) if (record.revoked) keys.revoke(record.key);
  const traits = createTraitStore({}, bounds?.traitUsers, () => bounds?.onEvict('traitUsers'));
  for (const row of state.traits) traits.set(row.environmentId, row.userId, row.traits);
  return { environments, keys, traits };
}

export function stateFromSeed(seed: ControlSeed): ControlState {
  return {
    environments: seed.environments.map(({ id, kind, snapshot }) => ({ id, kind, current: snapshot.version, snapshots: [snapshot] })),
    keys: seed.keys.map((record) => ({ ...record, revoked: false })),
    traits: seed.traits,
  };
}

/** The changes that bring any working copy to `state`: each current snapshot, every key, revocation and trait. */
export function changesFrom(state: ControlState): ControlChange[] {
  const changes: ControlChange[] = [];
  for (const { id, current, snapshots } of state.environments) {
    const snapshot = snapshots.find((s) => s.version === current);
    if (snapshot) changes.push({ kind: 'published', environmentId: id, snapshot });
  }
  for (const { revoked, ...record } of state.keys) {
    changes.push({ kind: 'key-added', record });
    if (revoked) changes.push({ kind: 'key-revoked', key: record.key });
  }
  for (const traits of state.traits) changes.push({ kind: 'traits-set', ...traits });
  return changes;
}

/** Applies a change to the working copy; applying one twice changes nothing. */
export function applyChange(working: WorkingCopy, change: ControlChange): void {
  switch (change.kind) {
    case 'published':
      working.environments.put(change.snapshot);
      return;
    case 'key-added':
      if (!working.keys.get(change.record.key)) working.keys.add(change.record);
      return;
    case 'key-revoked':
      working.keys.revoke(change.key);
      return;
    case 'traits-set':
      working.traits.set(change.environmentId, change.userId, change.traits);
      return;
    case 'resync':
      return;
  }
}
