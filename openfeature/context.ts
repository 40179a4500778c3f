import type { EvaluationContext as OpenFeatureContext, EvaluationContextValue } from '@openfeature/core';
import type { EvaluationContext, JsonValue } from '../src/index';

/** A context value as JSON: a `Date` as its ISO string (what the date operators read), `undefined` left out. */
function toJson(value: EvaluationContextValue): JsonValue | undefined {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => toJson(item) ?? null);
  if (value !== null && typeof value === 'object') return toAttributes(value as Record<string, EvaluationContextValue>);
  return value;
}

const toAttributes = (values: Record<string, EvaluationContextValue>): Record<string, JsonValue> => {
  const attributes: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(values)) {
    const json = toJson(value);
    if (json !== undefined) attributes[name] = json;
  }
  return attributes;
};

/**
 * An OpenFeature context as flagplane's: `targetingKey` is the `userId`, a `segmentIds`
 * member made of strings is the segment list, every other member is an attribute.
 */
export function toFlagplaneContext(context: OpenFeatureContext = {}): EvaluationContext {
  const { targetingKey, segmentIds, ...rest } = context;
  const isSegmentList = Array.isArray(segmentIds) && segmentIds.every((id) => typeof id === 'string');
  // Anything else named segmentIds stays an attribute: nothing the app passed is lost.
  if (segmentIds !== undefined && !isSegmentList) rest.segmentIds = segmentIds;
  return { userId: targetingKey || undefined, attributes: toAttributes(rest), segmentIds: isSegmentList ? (segmentIds as string[]) : [] };
}
