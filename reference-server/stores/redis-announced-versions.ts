/**
 * One-flag edits on Redis: stored as the edit alone (redis-scripts.ts) and announced with it.
 * How an instance on Redis learns a version another instance published: a one-flag edit
 * announces the flag with the version (`edit`: `{"key","flag"}` JSON, `flag` null for a removal),
 * so an instance holding the version before applies that one flag to it, sharing every other
 * flag object (and its JSON, snapshot-json.ts): nothing of the rest is read or parsed. Any
 * other publish, or an instance that missed the version before, reads the version from Redis.
 */
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { ControlChange } from './contracts';
import { flagJson, withFlag } from './snapshot-json';

/** A published version as the channel carries it. */
export interface PublishedAnnouncement {
  kind: 'published';
  environmentId: string;
  version: number;
  /** The one flag changed since `version - 1`, as JSON text; absent for a whole publish. */
  edit?: string;
}

/** The `edit` of the announcement of a draft that changed the flag `key` only ('' for none). */
export function editAnnouncement(draft: Pick<FlagSnapshot, 'flags'>, key: string | undefined): string {
  if (key === undefined) return '';
  const flag = Object.hasOwn(draft.flags, key) ? draft.flags[key] : undefined;
  return `{"key":${JSON.stringify(key)},"flag":${flag === undefined ? 'null' : flagJson(flag)}}`;
}

/** The newest version of each environment this store has stored, read or derived. */
export function createLatestVersions() {
  const latest = new Map<string, FlagSnapshot>();
  return {
    get: (environmentId: string) => latest.get(environmentId),
    /** Keeps `snapshot` when it is newer than the one kept; returns it. */
    remember<T extends FlagSnapshot | undefined>(snapshot: T): T {
      if (snapshot && (latest.get(snapshot.environmentId)?.version ?? -1) < snapshot.version) latest.set(snapshot.environmentId, snapshot);
      return snapshot;
    },
  };
}

/** Version `version` made from `base` (version - 1) by an edit (`{"key","flag"}` JSON). */
export function applyEdit(base: FlagSnapshot, version: number, edit: string): FlagSnapshot {
  const { key, flag } = JSON.parse(edit) as { key: string; flag: FlagSnapshot['flags'][string] | null };
  return { ...base, version, flags: withFlag(base.flags, key, flag ?? undefined) };
}

export interface VersionReads {
  snapshotAt(environmentId: string, version: number): Promise<FlagSnapshot | undefined>;
  current(environmentId: string): Promise<FlagSnapshot | undefined>;
}

/**
 * The change a published announcement stands for: the edit applied to the version before when
 * this store holds it; else the version read back from Redis, or, when later publishes removed
 * it already, the current version (newer, and a working copy only ever moves forward).
 */
export async function publishedChange(
  announcement: PublishedAnnouncement,
  latest: ReturnType<typeof createLatestVersions>,
  read: VersionReads,
): Promise<ControlChange | undefined> {
  const { environmentId, version, edit } = announcement;
  const base = latest.get(environmentId);
  const snapshot =
    edit && base?.version === version - 1
      ? latest.remember(applyEdit(base, version, edit))
      : ((await read.snapshotAt(environmentId, version)) ?? (await read.current(environmentId)));
  return snapshot && { kind: 'published', environmentId, snapshot };
}
