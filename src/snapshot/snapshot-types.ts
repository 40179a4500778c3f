/**
 * FlagSnapshot schema 1 — the wire shape of GET /sdk/v1/snapshot.
 * docs/protocol.md ("FlagSnapshot schema 1") and docs/schema/flag-snapshot.schema.json
 * are the normative description; these types mirror them.
 */

/** Any JSON value; variations may be booleans, strings, numbers, arrays or objects. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** The snapshot schema version this client understands. */
export const SUPPORTED_SCHEMA_VERSION = 1;

/** Operators of an attribute condition (docs/evaluation.md describes each). */
export type AttributeOperator =
  | 'in'
  | 'contains'
  | 'startsWith'
  | 'endsWith'
  | 'lt'
  | 'lte'
  | 'gt'
  | 'gte'
  | 'semverEq'
  | 'semverLt'
  | 'semverGt'
  | 'before'
  | 'after'
  | 'exists'
  | 'is';

/** A condition on `context.attributes[attribute]`. */
export interface AttributeCondition {
  kind: 'attribute';
  attribute: string;
  op: AttributeOperator;
  /**
   * Compared values; the condition matches when any one matches. Omitted for `exists`;
   * booleans for `is` (and only there).
   */
  values?: Array<string | number | boolean>;
  /** Inverts the result (a missing attribute under `negate` matches, except for `exists`, where it is simply "absent"). */
  negate?: boolean;
}

/** A condition on membership in `context.segmentIds`: true when the context is in any of them. */
export interface SegmentCondition {
  kind: 'segment';
  segmentIds: string[];
  negate?: boolean;
}

export type Condition = AttributeCondition | SegmentCondition;

/** One weighted slice of a percentage rollout. Weights are out of 100000. */
export interface WeightedVariation {
  variation: number;
  weight: number;
}

/** What a rule or the fallthrough serves: a fixed variation or a rollout. */
export type Serve = { variation: number } | { rollout: WeightedVariation[] };

export interface Rule {
  /** Stable id, reported as `ruleId` in evaluation details. */
  id: string;
  /** All must hold (logical AND); an empty list always matches. */
  conditions: Condition[];
  serve: Serve;
}

export interface Flag {
  /** Whether targeting is on; when false the flag serves `offVariation`. */
  on: boolean;
  variations: JsonValue[];
  offVariation: number;
  /** Evaluated in order; the first rule whose conditions all hold wins. */
  rules: Rule[];
  fallthrough: Serve;
  /** Salt for bucketing; the hash input is `${salt}.${bucketingKey}`. */
  salt: string;
  /** Sent to client-kind keys only when true. */
  clientSide: boolean;
  /**
   * Optional: one name per variation (unique, non-empty), reported as the served
   * variation's `variationKey` (and as OpenFeature's `variant`). Clients that predate it
   * ignore it.
   */
  variationKeys?: string[];
  /** Optional: the flag's own metadata, served to both key kinds (OpenFeature's `flagMetadata`). */
  metadata?: Record<string, string | number | boolean>;
}

export interface FlagSnapshot {
  schemaVersion: number;
  version: number;
  environmentId: string;
  flags: Record<string, Flag>;
}
