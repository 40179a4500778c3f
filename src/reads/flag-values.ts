import { evaluateFlag } from '../evaluation/evaluate-flag';
import type { ServedMark } from '../events/read-tracker';
import type { EvaluationContext, EvaluationDetails } from '../evaluation/evaluation-types';
import { jsonEqual } from '../evaluation/json-equal';
import type { FlagSnapshot, JsonValue } from '../snapshot/snapshot-types';

/**
 * What an outcome is compared by: every field of the details but `version`, less `key` (the
 * same on both sides) and `errorCode` (details carry one only with reason `ERROR`, always
 * `PARSE_ERROR` in the flag values and none in overrides).
 */
const OUTCOME = ['value', 'reason', 'variation', 'ruleId', 'variationKey'] as const;

/** Whether a flag was added, removed, or its outcome (any field but `version`) differs. */
const differs = (before: EvaluationDetails | undefined, after: EvaluationDetails | undefined): boolean =>
  before !== after && (!before || !after || OUTCOME.some((field) => before[field] !== after[field]));

/** Keys added, removed, or whose outcome differs, between two maps of details. */
export const changedKeys = (previous: ReadonlyMap<string, EvaluationDetails>, next: ReadonlyMap<string, EvaluationDetails>): Set<string> =>
  new Set([...previous.keys(), ...next.keys()].filter((key) => differs(previous.get(key), next.get(key))));

/** The context of no user yet: the three members the contract names, all present, `userId` undefined. */
export const noContext = (): EvaluationContext => ({ userId: undefined, attributes: {}, segmentIds: [] });

/** What flags are evaluated under: the snapshot, the context and the bucketing key. */
export interface EvaluationInput {
  snapshot: FlagSnapshot | null;
  context: EvaluationContext;
  bucketingKey: string | undefined;
}

/**
 * A flag read under the current input: its details (`undefined` for a flag the snapshot
 * lacks), and the event sender's mark beside them, so that a read already reported costs
 * no second lookup.
 */
export interface ReadEntry extends ServedMark {
  details: EvaluationDetails | undefined;
}

/**
 * The flag values a client serves, evaluated lazily: a flag is evaluated the first time it
 * is read under the current input, and kept until the input changes. A change re-evaluates
 * only the flags read so far (every flag once `readAll` was called), which is what its
 * change set covers: a flag never read has no value anyone holds, so there is nothing to
 * tell. A value deep-equal to the one before keeps the previous object, and an unchanged
 * outcome its details object (and entry), so readers comparing with `Object.is` see no change.
 */
export function createFlagValues(input: EvaluationInput) {
  /** Every key read under the current input. */
  const read = new Map<string, ReadEntry>();
  let all = false;
  // The keys of the last snapshot asked about: a context change walks the same snapshot's keys again.
  let keysFor: FlagSnapshot | null | undefined;
  let keys: string[] = [];
  const keysOf = (snapshot: FlagSnapshot | null) => (snapshot === keysFor ? keys : ((keysFor = snapshot), (keys = Object.keys(snapshot?.flags ?? {}))));

  /**
   * The details of `key` under the current input, keeping the value of `old` if deep-equal.
   * Not frozen yet: details the same as `old`'s are dropped unseen.
   */
  const evaluate = (key: string, old?: EvaluationDetails): EvaluationDetails | undefined => {
    const { snapshot } = input;
    // Own members only: a key such as `constructor` must not read Object.prototype.
    if (!snapshot || !Object.hasOwn(snapshot.flags, key)) return;
    // The evaluator never throws: a malformed flag comes back as a PARSE_ERROR, whose
    // errorCode goes with the ERROR defaults; a served outcome replaces them.
    const outcome = evaluateFlag(snapshot.flags[key]!, input.context, input.bucketingKey);
    const { version } = snapshot;
    // One literal per shape, members in the order a spread would give them: a rest and a spread,
    // or members added one by one, cost as much as the evaluation itself.
    const details: EvaluationDetails =
      outcome.kind !== 'served'
        ? { key, value: null, reason: 'ERROR', variation: null, errorCode: outcome.errorCode, version }
        : 'ruleId' in outcome || 'variationKey' in outcome
          ? { key, value: outcome.value, reason: outcome.reason, variation: outcome.variation, ...('ruleId' in outcome && { ruleId: outcome.ruleId }), ...('variationKey' in outcome && { variationKey: outcome.variationKey }), version }
          : { key, value: outcome.value, reason: outcome.reason, variation: outcome.variation, version };
    try {
      if (old && jsonEqual(old.value, details.value)) details.value = old.value;
    } catch {
      // Nested deeper than the stack: compared as different, which costs one notification.
    }
    return details;
  };

  /** The entry of `key` under the current input, evaluated on its first read. */
  const entry = (key: string): ReadEntry => {
    let found = read.get(key);
    // Every later read under this input serves these same details.
    if (!found) read.set(key, (found = { details: Object.freeze(evaluate(key)) }));
    return found;
  };

  return {
    entry,
    /** Every flag key of the snapshot, each counted as read from now on. */
    readAll(): string[] {
      all = true;
      return keysOf(input.snapshot);
    },
    /** Takes a new input; the keys read so far whose outcome changed. */
    update(next: EvaluationInput): Set<string> {
      const changed = new Set<string>();
      input = next;
      // `key` under the new input: its entry stays for the same outcome of the same version; whether the
      // outcome changed. Made here rather than beside `entry`: a view, which never updates, holds no such closure.
      const refresh = (key: string, before?: ReadEntry): boolean => {
        const old = before?.details;
        const details = evaluate(key, old);
        const same = !differs(old, details);
        if (!(same && old?.version === details?.version)) read.set(key, { details: Object.freeze(details) });
        return !same;
      };
      // In place: setting a key that is there does not disturb the walk.
      read.forEach((before, key) => refresh(key, before) && changed.add(key));
      if (all) for (const key of keysOf(next.snapshot)) if (!read.has(key) && refresh(key)) changed.add(key);
      return changed;
    },
  };
}

export type FlagValues = ReturnType<typeof createFlagValues>;

// One tag per JSON kind: 'object' is split into null, arrays and objects.
const kindOf = (value: JsonValue | undefined): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

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
  // The usual read first: kept small, this function is inlined into the caller's loop.
  // Two typeofs settle a string, number or boolean; only objects need the finer kind.
  return evaluated &&
    !evaluated.errorCode &&
    (fallback === undefined ||
      (typeof evaluated.value === typeof fallback && (typeof fallback !== 'object' || kindOf(evaluated.value) === kindOf(fallback))))
    ? evaluated
    : misread(key, evaluated, source, fallback);
}

function misread<T extends JsonValue | undefined>(
  key: string,
  evaluated: EvaluationDetails | undefined,
  source: Pick<FlagSnapshot, 'version'> | EvaluationDetails | null,
  fallback: T,
): EvaluationDetails<JsonValue | T> {
  // Past the usual read, `evaluated` without an errorCode is of another type than the fallback.
  return {
    key,
    value: fallback,
    reason: 'ERROR',
    variation: null,
    version: source?.version ?? null,
    errorCode: !source ? 'PROVIDER_NOT_READY' : !evaluated ? 'FLAG_NOT_FOUND' : (evaluated.errorCode ?? 'TYPE_MISMATCH'),
  };
}
