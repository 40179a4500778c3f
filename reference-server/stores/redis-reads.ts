import type { Redis as RedisClient } from 'ioredis';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { ControlState } from './contracts';
import type { EnvironmentKind, KeyRecord, StoredTraits } from './records';
import type { RedisKeys } from './redis-keys';
import { VERSION_SCRIPT } from './redis-scripts';
import { applyEdit } from './redis-announced-versions';

// What the Redis control store reads. A publish removes old versions (redis-scripts.ts), so
// each read of a version that must exist reads it together with `current`.

/** A stored snapshot's JSON, with the version and environment it was stored under. */
export function parseSnapshot(text: string, version: number, environmentId: string): FlagSnapshot {
  return { ...(JSON.parse(text) as FlagSnapshot), version, environmentId };
}

/** The replies of a MULTI, each error thrown. */
function repliesOf(results: Array<[Error | null, unknown]> | null): unknown[] {
  if (!results) throw new Error('the Redis transaction was aborted');
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

/**
 * Everything under the prefix, as `ControlStore.load` answers it. One transaction reads
 * it: a publish in between could otherwise remove the version `current` was read at.
 */
export async function loadState(command: RedisClient, k: RedisKeys): Promise<ControlState> {
  const environments = await command.hgetall(k.environments);
  const ids = Object.keys(environments);
  const transaction = command.multi().hgetall(k.keys).smembers(k.revoked);
  for (const id of ids) transaction.get(k.current(id)).hgetall(k.snapshots(id)).hgetall(k.traits(id)).hgetall(k.edits(id));
  const [keys, revoked, ...flat] = repliesOf(await transaction.exec()) as [Record<string, string>, string[], ...unknown[]];
  const perEnvironment = ids.map((_, i) => flat.slice(i * 4, i * 4 + 4) as [string | null, Record<string, string>, Record<string, string>, Record<string, string>]);
  const revokedSet = new Set(revoked);
  return {
    environments: ids.map((id, i) => {
      const [current, snapshots, , edits] = perEnvironment[i] ?? [null, {}, {}, {}];
      const { kind } = JSON.parse(environments[id] ?? '{}') as { kind: EnvironmentKind };
      return { id, kind, current: Number(current ?? 0), snapshots: storedVersions(id, snapshots, edits) };
    }),
    keys: Object.entries(keys).map(([key, text]) => ({ key, ...(JSON.parse(text) as Omit<KeyRecord, 'key' | 'revoked'>), revoked: revokedSet.has(key) })),
    traits: ids.flatMap((id, i) =>
      Object.entries(perEnvironment[i]?.[2] ?? {}).map(([userId, text]) => ({ environmentId: id, userId, traits: JSON.parse(text) as StoredTraits })),
    ),
  };
}

/**
 * Every version of an environment, oldest first, from the whole ones and the one-flag edits
 * (each applied to the version before, sharing its other flags); a version whose chain is
 * broken is left out.
 */
function storedVersions(environmentId: string, whole: Record<string, string>, edits: Record<string, string>): FlagSnapshot[] {
  const versions = [...new Set([...Object.keys(whole), ...Object.keys(edits)].map(Number))].sort((a, b) => a - b);
  const built: FlagSnapshot[] = [];
  let previous: FlagSnapshot | undefined;
  for (const version of versions) {
    const text = whole[version];
    const edit = edits[version];
    if (text !== undefined) previous = parseSnapshot(text, version, environmentId);
    else previous = previous?.version === version - 1 && edit !== undefined ? applyEdit(previous, version, edit) : undefined;
    if (previous) built.push(previous);
  }
  return built;
}

/** A version (the current one without `version`) built from VERSION_SCRIPT's reply, or undefined once a publish removed it. */
async function readVersion(command: RedisClient, k: RedisKeys, environmentId: string, version?: number): Promise<FlagSnapshot | undefined> {
  const keys = [k.current(environmentId), k.snapshots(environmentId), k.edits(environmentId)];
  const reply = (await command.eval(VERSION_SCRIPT, 3, ...keys, version === undefined ? '' : String(version))) as string[] | null;
  if (!reply) return undefined;
  const [target, base, text, ...edits] = reply;
  let snapshot = parseSnapshot(text!, Number(base), environmentId);
  for (const [i, edit] of edits.entries()) snapshot = applyEdit(snapshot, Number(base) + i + 1, edit);
  return snapshot.version === Number(target) ? snapshot : undefined;
}

/** One stored version, or undefined once a publish removed it. */
export function readSnapshot(command: RedisClient, k: RedisKeys, environmentId: string, version: number): Promise<FlagSnapshot | undefined> {
  return readVersion(command, k, environmentId, version);
}

/** The snapshot `current` points at, read with the pointer in one script. */
export function readCurrent(command: RedisClient, k: RedisKeys, environmentId: string): Promise<FlagSnapshot | undefined> {
  return readVersion(command, k, environmentId);
}
