import type { Redis as RedisClient } from 'ioredis';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { ControlState } from './contracts';
import type { EnvironmentKind, KeyRecord, StoredTraits } from './records';
import type { RedisKeys } from './redis-keys';
import { CURRENT_SCRIPT } from './redis-scripts';

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
  for (const id of ids) transaction.get(k.current(id)).hgetall(k.snapshots(id)).hgetall(k.traits(id));
  const [keys, revoked, ...flat] = repliesOf(await transaction.exec()) as [Record<string, string>, string[], ...unknown[]];
  const perEnvironment = ids.map((_, i) => flat.slice(i * 3, i * 3 + 3) as [string | null, Record<string, string>, Record<string, string>]);
  const revokedSet = new Set(revoked);
  return {
    environments: ids.map((id, i) => {
      const [current, snapshots] = perEnvironment[i] ?? [null, {}];
      const { kind } = JSON.parse(environments[id] ?? '{}') as { kind: EnvironmentKind };
      const stored = Object.entries(snapshots).map(([version, text]) => parseSnapshot(text, Number(version), id));
      return { id, kind, current: Number(current ?? 0), snapshots: stored.sort((a, b) => a.version - b.version) };
    }),
    keys: Object.entries(keys).map(([key, text]) => ({ key, ...(JSON.parse(text) as Omit<KeyRecord, 'key' | 'revoked'>), revoked: revokedSet.has(key) })),
    traits: ids.flatMap((id, i) =>
      Object.entries(perEnvironment[i]?.[2] ?? {}).map(([userId, text]) => ({ environmentId: id, userId, traits: JSON.parse(text) as StoredTraits })),
    ),
  };
}

/** One stored version, or undefined once a publish removed it. */
export async function readSnapshot(command: RedisClient, k: RedisKeys, environmentId: string, version: number): Promise<FlagSnapshot | undefined> {
  const text = await command.hget(k.snapshots(environmentId), String(version));
  return text === null ? undefined : parseSnapshot(text, version, environmentId);
}

/** The snapshot `current` points at, read with the pointer in one script. */
export async function readCurrent(command: RedisClient, k: RedisKeys, environmentId: string): Promise<FlagSnapshot | undefined> {
  const reply = (await command.eval(CURRENT_SCRIPT, 2, k.current(environmentId), k.snapshots(environmentId))) as [string, string | null] | null;
  return reply?.[1] ? parseSnapshot(reply[1], Number(reply[0]), environmentId) : undefined;
}
