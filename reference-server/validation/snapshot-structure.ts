import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { isNonNegativeInteger } from './numbers';
import { isRecord } from '../../src/shared/guards';

/** A snapshot whose envelope is well formed; its flags are not inspected. */
export type SnapshotDraft = Omit<FlagSnapshot, 'version' | 'environmentId'> & {
  version?: number;
  environmentId?: string;
};

export type StructureCheck =
  | { ok: true; snapshot: SnapshotDraft }
  | { ok: false; path: string; problem: string };

/**
 * Checks only the envelope (protocol.md §7): publishing must accept any `schemaVersion`,
 * since clients are tested against snapshots newer than the schema they support.
 */
export function checkSnapshotStructure(value: unknown, prefix = ''): StructureCheck {
  const at = (member: string) => (prefix ? `${prefix}.${member}` : member);
  if (!isRecord(value)) {
    return { ok: false, path: prefix, problem: 'must be a JSON object' };
  }
  if (!(typeof value.schemaVersion === 'number' && Number.isSafeInteger(value.schemaVersion) && value.schemaVersion >= 1)) {
    return { ok: false, path: at('schemaVersion'), problem: 'must be a positive integer' };
  }
  if (value.version !== undefined && !isNonNegativeInteger(value.version)) {
    return { ok: false, path: at('version'), problem: 'must be a non-negative integer' };
  }
  if (value.environmentId !== undefined && typeof value.environmentId !== 'string') {
    return { ok: false, path: at('environmentId'), problem: 'must be a string' };
  }
  if (!isRecord(value.flags)) {
    return { ok: false, path: at('flags'), problem: 'must be a JSON object' };
  }
  return { ok: true, snapshot: value as unknown as SnapshotDraft };
}
