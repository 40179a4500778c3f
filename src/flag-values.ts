import { evaluateFlag } from './evaluation/index';
import type { EvaluationContext, EvaluationDetails, FlagEvaluation } from './evaluation-types';
import { jsonEqual } from './json-equal';
import type { FlagSnapshot, JsonValue } from './snapshot-types';

/** Every flag of one snapshot evaluated for one context. Immutable. */
export type EvaluatedFlags = ReadonlyMap<string, EvaluationDetails>;

export interface EvaluateAllResult {
  flags: EvaluatedFlags;
  /** Keys whose value, variation, reason or rule differ from `previous`. */
  changed: ReadonlySet<string>;
}

const sameOutcome = (a: EvaluationDetails, b: EvaluationDetails): boolean =>
  a.variation === b.variation &&
  a.reason === b.reason &&
  a.ruleId === b.ruleId &&
  a.errorCode === b.errorCode &&
  jsonEqual(a.value, b.value);

function evaluateOne(key: string, snapshot: FlagSnapshot, context: EvaluationContext, bucketingKey: string | undefined): EvaluationDetails {
  let result: FlagEvaluation;
  try {
    result = evaluateFlag(snapshot.flags[key]!, context, bucketingKey);
  } catch {
    result = { kind: 'error', errorCode: 'PARSE_ERROR' };
  }
  if (result.kind === 'error') {
    return { key, value: null, reason: 'ERROR', variation: null, version: snapshot.version, errorCode: result.errorCode };
  }
  const details: EvaluationDetails = { key, value: result.value, reason: result.reason, variation: result.variation, version: snapshot.version };
  if (result.ruleId !== undefined) details.ruleId = result.ruleId;
  return details;
}

/**
 * Evaluates every flag of `snapshot` once. A flag whose outcome equals the previous one
 * keeps its previous value object, so readers comparing with `Object.is` see no change.
 */
export function evaluateAll(
  snapshot: FlagSnapshot | null,
  context: EvaluationContext,
  bucketingKey: string | undefined,
  previous: EvaluatedFlags,
): EvaluateAllResult {
  const flags = new Map<string, EvaluationDetails>();
  const changed = new Set<string>();
  for (const key of snapshot ? Object.keys(snapshot.flags) : []) {
    const fresh = evaluateOne(key, snapshot!, context, bucketingKey);
    const old = previous.get(key);
    if (old && sameOutcome(old, fresh)) {
      flags.set(key, old.version === fresh.version ? old : { ...fresh, value: old.value });
    } else {
      flags.set(key, fresh);
      changed.add(key);
    }
  }
  for (const key of previous.keys()) if (!flags.has(key)) changed.add(key);
  return { flags, changed };
}

const kindOf = (value: JsonValue | undefined): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/**
 * The read path: the evaluated flag, else the fallback with an `ERROR` reason. When a
 * fallback is known, a served value of another JSON kind yields the fallback too, so a
 * typed `get` never returns a value of the wrong type.
 */
export function resolveRead<T extends JsonValue | undefined>(
  key: string,
  evaluated: EvaluationDetails | undefined,
  snapshot: FlagSnapshot | null,
  fallback: T,
): EvaluationDetails<JsonValue | T> {
  const version = snapshot ? snapshot.version : null;
  if (!snapshot) return { key, value: fallback, reason: 'ERROR', variation: null, version, errorCode: 'PROVIDER_NOT_READY' };
  if (!evaluated) return { key, value: fallback, reason: 'ERROR', variation: null, version, errorCode: 'FLAG_NOT_FOUND' };
  if (evaluated.reason === 'ERROR') return { ...evaluated, value: fallback };
  if (fallback !== undefined && kindOf(evaluated.value) !== kindOf(fallback)) {
    return { key, value: fallback, reason: 'ERROR', variation: null, version, errorCode: 'TYPE_MISMATCH' };
  }
  return evaluated;
}
