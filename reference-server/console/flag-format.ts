/**
 * Readable summaries of a flag: its type, what it serves, its rules. Pure functions that
 * never throw — a snapshot published through PUT …/snapshot is only checked at its envelope,
 * so any member may be malformed, and the console must still show the rest.
 */
import type { JsonValue } from '../../src/index';
import { isRecord } from '../../src/shared/guards';

export type FlagType = 'boolean' | 'string' | 'number' | 'json';

/** The JSON type every variation shares, else `json`. */
export function flagType(variations: unknown): FlagType {
  if (!Array.isArray(variations) || variations.length === 0) return 'json';
  for (const type of ['boolean', 'string', 'number'] as const) {
    if (variations.every((value) => typeof value === type)) return type;
  }
  return 'json';
}

/** A value as one short line: strings quoted, objects as compact JSON, cut at `max` characters. */
export function formatValue(value: unknown, max = 60): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `variation 1 (true)`, or a note that the index is not a variation. */
export function describeVariation(index: unknown, variations: readonly JsonValue[]): string {
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= variations.length) {
    return `variation ${formatValue(index)} (no such variation)`;
  }
  return `${formatValue(variations[index])}`;
}

/** Weights are out of 100000: 25000 → `25%`, 33333 → `33.333%`. */
export const percent = (weight: number): string => `${Number((weight / 1000).toFixed(3))}%`;

/** `true` or `90% false · 10% true`. */
export function describeServe(serve: unknown, variations: readonly JsonValue[]): string {
  if (!isRecord(serve)) return `malformed serve ${formatValue(serve)}`;
  if ('variation' in serve) return describeVariation(serve.variation, variations);
  if (Array.isArray(serve.rollout)) {
    return serve.rollout
      .map((slice: unknown) =>
        isRecord(slice) && typeof slice.weight === 'number'
          ? `${percent(slice.weight)} ${describeVariation(slice.variation, variations)}`
          : `malformed slice ${formatValue(slice)}`,
      )
      .join(' · ');
  }
  return `malformed serve ${formatValue(serve)}`;
}

/** `email endsWith "@example.com"`, `not in segment churn-risk`, `taxId exists`, `customer is not false`. */
export function describeCondition(condition: unknown): string {
  if (!isRecord(condition)) return `malformed condition ${formatValue(condition)}`;
  const not = condition.negate === true;
  if (condition.kind === 'segment') {
    const ids = Array.isArray(condition.segmentIds) ? condition.segmentIds.map(String).join(' or ') : '?';
    return `${not ? 'not in' : 'in'} segment ${ids}`;
  }
  if (condition.kind === 'attribute') {
    const attribute = String(condition.attribute);
    if (condition.op === 'exists') return `${attribute} ${not ? 'is absent' : 'exists'}`;
    const entries = Array.isArray(condition.values) ? condition.values.map((value) => formatValue(value, 40)) : [];
    if (condition.op === 'is') return `${attribute} is ${not ? 'not ' : ''}${entries.join(' or ')}`.trimEnd();
    return `${attribute} ${not ? 'not ' : ''}${String(condition.op)} ${entries.join(', ')}`.trimEnd();
  }
  return `unknown condition ${formatValue(condition)}`;
}

/** One rule as a line: `staff: if email endsWith "@example.com" → true`. */
export function describeRule(rule: unknown, variations: readonly JsonValue[]): string {
  if (!isRecord(rule)) return `malformed rule ${formatValue(rule)}`;
  const conditions = Array.isArray(rule.conditions) ? rule.conditions.map(describeCondition) : [];
  const when = conditions.length ? `if ${conditions.join(' and ')}` : 'always';
  return `${String(rule.id ?? '?')}: ${when} → ${describeServe(rule.serve, variations)}`;
}

/** Whole weights that sum to 100000, as even as possible (the first slices take the remainder). */
export function evenWeights(count: number): number[] {
  if (count <= 0) return [];
  const base = Math.floor(100_000 / count);
  return Array.from({ length: count }, (_, i) => base + (i < 100_000 - base * count ? 1 : 0));
}

/** A flag to start from when creating one. */
export function flagTemplate(key: string) {
  return { on: false, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: key, clientSide: true };
}
