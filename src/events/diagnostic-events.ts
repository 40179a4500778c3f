import type { JsonValue } from '../snapshot/snapshot-types';

/** The diagnostic events of protocol.md §4, as sent in a batch to POST /sdk/v1/events. */
export type DiagnosticEvent =
  | { type: 'evaluation'; key: string; reason: string; value: JsonValue; userId?: string }
  | { type: 'unregistered_flag'; key: string }
  | { type: 'error'; message: string }
  | { type: 'version_skew'; previousVersion: number; currentVersion: number }
  | { type: 'identify'; userId: string; traits: Record<string, JsonValue> };
