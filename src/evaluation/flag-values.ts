import { evaluateFlag } from './index';
import type { EvaluationContext, EvaluationDetails } from './evaluation-types';
import { jsonEqual } from './json-equal';
import type { FlagSnapshot, JsonValue } from '../snapshot/snapshot-types';

/** Every flag of one snapshot evaluated for one context. Immutable. */
export type EvaluatedFlags = ReadonlyMap<string, EvaluationDetails>;

export interface EvaluateAllResult {
  flags: EvaluatedFlags;
  /** Keys whose value, variation, reason or rule differ from `previous`. */
  changed: ReadonlySet<string>;
}

/** Whether a flag was added, removed, or its outcome (any field but `version`) differs. */
const differs = (before: EvaluationDetails | undefined, after: EvaluationDetails | undefined): boolean =>
  !before ||
  !after ||
  (Object.keys({ ...before, ...after }) as Array<keyof EvaluationDetails>).some((field) => field !== 'version' && before[field] !== after[field]);

/**
 * Keys added, removed, or whose outcome differs. Values are compared by identity:
 * {@link evaluateAll} has already shared deep-equal ones.
 */
export const changedKeys = (previous: EvaluatedFlags, next: EvaluatedFlags): Set<string> =>
  new Set([...previous.keys(), ...next.keys()].filter((key) => differs(previous.get(key), next.get(key))));

/**
 * Evaluates every flag of `snapshot` once. A value deep-equal to the previous one keeps
 * the previous object, and a flag whose details are unchanged keeps its details object,
 * so readers comparing with `Object.is` see no change.
 */
export function evaluateAll(
  snapshot: FlagSnapshot | null,
  context: EvaluationContext,
  bucketingKey: string | undefined,
  previous: EvaluatedFlags,
): EvaluateAllResult {
  const flags = new Map<string, EvaluationDetails>();
  if (snapshot) {
    const { version } = snapshot;
    for (const [key, flag] of Object.entries(snapshot.flags)) {
      // The evaluator never throws: a malformed flag comes back as a PARSE_ERROR, whose
      // errorCode lands on top of the ERROR defaults; a served outcome replaces them.
      const { kind, ...outcome } = evaluateFlag(flag, context, bucketingKey);
      const details: EvaluationDetails = { key, value: null, reason: 'ERROR', variation: null, ...outcome, version };
      const old = previous.get(key);
      try {
        if (old && jsonEqual(old.value, details.value)) details.value = old.value;
      } catch {
        // Nested deeper than the stack: compared as different, which costs one notification.
      }
      flags.set(key, old?.version === version && !differs(old, details) ? old : details);
    }
  }
  return { flags, changed: changedKeys(previous, flags) };
}

// One tag per JSON kind: "[object Null]", "[object Array]", "[object Object]", "[object String]"…
const kindOf = (value: JsonValue | undefined): string => ({}).toString.call(value);

/**
 * The read path: the evaluated flag, else the fallback with an `ERROR` reason. When a
 * fallback is known, a served value of another JSON kind yields the fallback too, so a
 * typed `get` never returns a value of the wrong type. `source` is what the value came
 * from: the snapshot (`null` before one), or a local override (itself, version `null`).
 */
export function resolveRead<T extends JsonValue | undefined>(
  key: string,
  evaluated: EvaluationDetails | undefined,
  source: Pick<FlagSnapshot, 'version'> | EvaluationDetails | null,
  fallback: T,
): EvaluationDetails<JsonValue | T> {
  const errorCode = !source
    ? 'PROVIDER_NOT_READY'
    : !evaluated
      ? 'FLAG_NOT_FOUND'
      : (evaluated.errorCode ?? (fallback !== undefined && kindOf(evaluated.value) !== kindOf(fallback) ? 'TYPE_MISMATCH' : undefined));
  return errorCode
    ? { key, value: fallback, reason: 'ERROR', variation: null, version: source?.version ?? null, errorCode }
    : evaluated!;
}
