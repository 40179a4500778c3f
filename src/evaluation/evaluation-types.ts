import type { JsonValue } from '../snapshot/snapshot-types';

/** Who a flag is evaluated for (protocol.md §2). Every member is optional. */
export interface EvaluationContext {
  userId?: string | undefined;
  attributes?: Record<string, JsonValue | undefined> | undefined;
  segmentIds?: string[] | undefined;
}

/**
 * Why a value was served. The names follow OpenFeature's resolution reasons so an
 * OpenFeature provider can pass them through unchanged; `OVERRIDE` is our own.
 * - `DISABLED`: the flag is off and served its off variation.
 * - `TARGETING_MATCH`: a rule matched and served a fixed variation.
 * - `SPLIT`: a percentage rollout (in a rule or the fallthrough) chose the variation.
 * - `DEFAULT`: no rule matched; the fallthrough served a fixed variation.
 * - `OVERRIDE`: a local override from `setOverrides()` won.
 * - `ERROR`: the configured default was served; `errorCode` says why.
 */
export type EvaluationReason =
  | 'DISABLED'
  | 'TARGETING_MATCH'
  | 'SPLIT'
  | 'DEFAULT'
  | 'OVERRIDE'
  | 'ERROR';

/**
 * Why the default was served (OpenFeature error codes).
 * - `PROVIDER_NOT_READY`: no snapshot exists yet.
 * - `FLAG_NOT_FOUND`: the snapshot has no flag with that key.
 * - `PARSE_ERROR`: the flag is malformed (for example a variation index out of range).
 * - `TYPE_MISMATCH`: the served value's type differs from the configured default's.
 * - `GENERAL`: anything else (a defect; the read still answers).
 */
export type EvaluationErrorCode =
  | 'PROVIDER_NOT_READY'
  | 'FLAG_NOT_FOUND'
  | 'PARSE_ERROR'
  | 'TYPE_MISMATCH'
  | 'GENERAL';

/** The outcome of evaluating one flag of a snapshot, before defaults are applied. */
export type FlagEvaluation =
  | {
      kind: 'served';
      value: JsonValue;
      variation: number;
      reason: 'DISABLED' | 'TARGETING_MATCH' | 'SPLIT' | 'DEFAULT';
      ruleId?: string;
      variationKey?: string;
    }
  | { kind: 'error'; errorCode: 'PARSE_ERROR' };

/** What `getDetails()` returns: the value and the reason it was served. */
export interface EvaluationDetails<T = JsonValue> {
  key: string;
  value: T;
  reason: EvaluationReason;
  /** Index of the served variation, or `null` when a default or override was served. */
  variation: number | null;
  /** The served variation's name, when the flag names its variations (`variationKeys`). */
  variationKey?: string;
  /** The matching rule's id, when a rule decided. */
  ruleId?: string;
  /** Version of the snapshot evaluated, or `null` when there is none. */
  version: number | null;
  errorCode?: EvaluationErrorCode;
}
