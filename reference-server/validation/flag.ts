import schema from '../../docs/schema/flag-snapshot.schema.json';
import { validateSchema, type Schema, type SchemaViolation } from './json-schema';

/** docs/schema/flag-snapshot.schema.json: the FlagSnapshot of schema 1. */
export const SNAPSHOT_SCHEMA: Schema = schema;
const FLAG_SCHEMA = (schema.$defs as Record<string, Schema>).flag!;

/** Out of this many a rollout's weights are given (protocol.md §2). */
const ROLLOUT_TOTAL = 100000;

interface Serve {
  variation?: number;
  rollout?: Array<{ variation: number; weight: number }>;
}
interface CheckedFlag {
  variations: unknown[];
  offVariation: number;
  rules: Array<{ id: string; serve: Serve }>;
  fallthrough: Serve;
  variationKeys?: string[];
}

/**
 * What the schema cannot say: variation indexes in range, rollouts summing to 100000, unique
 * rule ids, one variation key per variation.
 */
function semanticViolation(flag: CheckedFlag): SchemaViolation | undefined {
  const count = flag.variations.length;
  const index = (value: number, path: string) =>
    value < count ? undefined : { path, problem: `must be a variation index below ${count} (the flag has ${count} variation(s)), not ${value}` };
  const serve = ({ variation, rollout }: Serve, path: string): SchemaViolation | undefined => {
    if (variation !== undefined) return index(variation, `${path}.variation`);
    for (const [i, slice] of (rollout ?? []).entries()) {
      const bad = index(slice.variation, `${path}.rollout[${i}].variation`);
      if (bad) return bad;
    }
    const total = (rollout ?? []).reduce((sum, slice) => sum + slice.weight, 0);
    return total === ROLLOUT_TOTAL ? undefined : { path: `${path}.rollout`, problem: `weights must sum to ${ROLLOUT_TOTAL}, not ${total}` };
  };
  const seen = new Set<string>();
  for (const [i, rule] of flag.rules.entries()) {
    if (seen.has(rule.id)) return { path: `rules[${i}].id`, problem: `must be unique within the flag: "${rule.id}" is used twice` };
    seen.add(rule.id);
  }
  const keys = flag.variationKeys;
  if (keys && keys.length !== count) {
    return { path: 'variationKeys', problem: `must have one entry per variation: the flag has ${count} variation(s), not ${keys.length}` };
  }
  return (
    index(flag.offVariation, 'offVariation') ??
    serve(flag.fallthrough, 'fallthrough') ??
    flag.rules.map((rule, i) => serve(rule.serve, `rules[${i}].serve`)).find(Boolean)
  );
}

/**
 * The first way `flag` breaks schema 1 (docs/schema/flag-snapshot.schema.json, and the rules
 * the schema cannot state), with its path inside the flag; `undefined` for a valid flag.
 */
export function flagViolation(flag: unknown): SchemaViolation | undefined {
  const [first] = validateSchema(SNAPSHOT_SCHEMA, FLAG_SCHEMA, flag);
  return first ?? semanticViolation(flag as CheckedFlag);
}
