/**
 * An environment read again, merged into the one shown so that what did not change keeps its
 * identity: a flag whose JSON is unchanged stays the same object, so its memoised row does not
 * re-render, and an answer with nothing new leaves the whole entry as it was.
 */
import type { Flag } from '../../src/index';
import type { EnvironmentInfo, FlagChange } from './api';

/** Whether two parsed JSON values are equal (member order ignored), without serialising them. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  // Plain loops: this runs over every member of 10,000 flags after each publish.
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let members = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
    members++;
  }
  for (const key in right) if (Object.hasOwn(right, key) && --members < 0) return false;
  return members === 0;
}

/** `next`'s flags, each replaced by the shown one when their JSON is the same; `shown` itself when nothing differs. */
export function mergeFlags(shown: Readonly<Record<string, Flag>>, next: Readonly<Record<string, Flag>>): Record<string, Flag> {
  let changed = Object.keys(shown).length !== Object.keys(next).length;
  const merged: Record<string, Flag> = {};
  for (const [key, flag] of Object.entries(next)) {
    const before = Object.hasOwn(shown, key) ? shown[key] : undefined;
    if (before !== undefined && sameJson(before, flag)) merged[key] = before;
    else {
      merged[key] = flag;
      changed = true;
    }
  }
  return changed ? merged : (shown as Record<string, Flag>);
}

/** `next`, sharing every unchanged part with `shown`; `shown` itself when they hold the same JSON. */
export function mergeEnvironment(shown: EnvironmentInfo, next: EnvironmentInfo): EnvironmentInfo {
  const flags = mergeFlags(shown.snapshot.flags ?? {}, next.snapshot.flags ?? {});
  const { flags: _shownFlags, ...shownRest } = shown.snapshot;
  const { flags: _nextFlags, ...nextRest } = next.snapshot;
  const snapshot = flags === shown.snapshot.flags && sameJson(shownRest, nextRest) ? shown.snapshot : { ...next.snapshot, flags };
  const { snapshot: _shownSnapshot, ...shownInfo } = shown;
  const { snapshot: _nextSnapshot, ...nextInfo } = next;
  return snapshot === shown.snapshot && sameJson(shownInfo, nextInfo) ? shown : { ...next, snapshot };
}

/** Every environment of `next`, each merged into the shown one of the same id; `shown` itself when nothing changed. */
export function mergeEnvironments(shown: EnvironmentInfo[] | null, next: EnvironmentInfo[]): EnvironmentInfo[] {
  if (!shown) return next;
  const merged = next.map((environment) => {
    const before = shown.find((candidate) => candidate.id === environment.id);
    return before ? mergeEnvironment(before, environment) : environment;
  });
  return merged.length === shown.length && merged.every((environment, i) => environment === shown[i]) ? shown : merged;
}

/**
 * What this console's own change published, applied at once from the answer (the flag as the
 * server stored it), when it is the very next version of the one shown. Any other gap means a
 * change made elsewhere in between: the feed's read of the environment brings both.
 */
export function withFlagChange(environments: EnvironmentInfo[] | null, change: FlagChange): EnvironmentInfo[] | null {
  const index = environments?.findIndex((environment) => environment.id === change.environmentId) ?? -1;
  const shown = index === -1 ? undefined : environments![index]!;
  if (!shown || shown.version !== change.version - 1 || (!change.removed && change.flag === undefined)) return environments;
  const flags = { ...shown.snapshot.flags };
  if (change.removed) delete flags[change.key];
  else flags[change.key] = change.flag!;
  const next: EnvironmentInfo = { ...shown, version: change.version, versions: [...shown.versions, change.version], snapshot: { ...shown.snapshot, ...('version' in shown.snapshot ? { version: change.version } : {}), flags } };
  return environments!.map((environment, i) => (i === index ? next : environment));
}
