/**
 * The JSON of stored snapshots, assembled from the JSON of their flags. A version made by
 * changing one flag shares every other flag object with the version it came from (the flag
 * editor copies the `flags` map, never the flags), and each flag object's JSON is written once
 * and remembered here: so the body of the new version is the old pieces plus one new one, and
 * publishing costs what the change costs, not what the environment weighs.
 *
 * A flag whose JSON is remembered is frozen, deeply: stored flags are shared between versions
 * and never changed (an edit stores a new object), and the freeze makes that a fact, so a
 * remembered piece can never go stale.
 */
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';

const flagJsonOf = new WeakMap<object, string>();

function deepFreeze(value: unknown): void {
  const pending = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null || Object.isFrozen(current)) continue;
    Object.freeze(current);
    for (const member of Object.values(current)) pending.push(member);
  }
}

/** Remembers `json` as the JSON of `flag`, which it must be, and freezes the flag. */
export function rememberFlagJson(flag: unknown, json: string): string {
  if (typeof flag !== 'object' || flag === null) return json;
  deepFreeze(flag);
  flagJsonOf.set(flag, json);
  return json;
}

/** The JSON of one stored flag, written the first time it is asked for. */
export function flagJson(flag: unknown): string {
  if (typeof flag !== 'object' || flag === null) return JSON.stringify(flag);
  return flagJsonOf.get(flag) ?? rememberFlagJson(flag, JSON.stringify(flag));
}

/** Which flags a body holds: every one, or those a client key may read (`clientSide: true`). */
export type FlagSelection = 'all' | 'client-side';

function selected(flag: unknown, selection: FlagSelection): boolean {
  return selection === 'all' || (flag as { clientSide?: unknown } | null)?.clientSide === true;
}

/** `,"key":<flag JSON>` as UTF-8, per flag object: the member's bytes, written once. */
const memberOf = new WeakMap<object, { key: string; bytes: Buffer }>();

function memberBytes(key: string, flag: unknown): Buffer {
  if (typeof flag !== 'object' || flag === null) return Buffer.from(`,${JSON.stringify(key)}:${JSON.stringify(flag)}`);
  const known = memberOf.get(flag);
  if (known?.key === key) return known.bytes;
  const bytes = Buffer.from(`,${JSON.stringify(key)}:${flagJson(flag)}`);
  memberOf.set(flag, { key, bytes });
  return bytes;
}

/** Envelope members written first, in this order; any other member follows, and `flags` comes last. */
const LEADING = ['schemaVersion', 'version', 'environmentId'];

/**
 * The snapshot as UTF-8 JSON (with the flags of `selection` only), each flag's bytes written
 * once per flag object, not once per version: the body is a concatenation of remembered pieces.
 * The members come in one order, whatever the order of the object's own (which depends on how
 * the version was made: published, edited, read back), so every instance sends the same bytes
 * for the same version.
 */
export function snapshotJson(snapshot: Omit<FlagSnapshot, 'version'> & { version?: number }, selection: FlagSelection = 'all'): Buffer {
  const envelope = snapshot as unknown as Record<string, unknown>;
  const names = [...LEADING.filter((name) => Object.hasOwn(envelope, name)), ...Object.keys(envelope).filter((name) => !LEADING.includes(name) && name !== 'flags')];
  const members: string[] = [];
  for (const name of names) if (envelope[name] !== undefined) members.push(`${JSON.stringify(name)}:${JSON.stringify(envelope[name])}`);
  const pieces: Buffer[] = [Buffer.from(`{${members.join(',')}${members.length > 0 ? ',' : ''}"flags":{`)];
  const { flags } = snapshot;
  for (const key of Object.keys(flags)) {
    const flag = flags[key];
    if (flag === undefined || !selected(flag, selection)) continue;
    const bytes = memberBytes(key, flag);
    // Each piece starts with its comma; the first flag's is left out.
    pieces.push(pieces.length === 1 ? bytes.subarray(1) : bytes);
  }
  pieces.push(Buffer.from('}}'));
  return Buffer.concat(pieces);
}

/**
 * The flags of `flags` with one flag replaced, added, or (`undefined`) removed: a new map that
 * shares every other flag object, so their JSON is not written again.
 */
export function withFlag(flags: FlagSnapshot['flags'], key: string, flag: unknown): FlagSnapshot['flags'] {
  const next: Record<string, unknown> = { ...flags };
  if (flag === undefined) delete next[key];
  else next[key] = flag;
  return next as FlagSnapshot['flags'];
}
