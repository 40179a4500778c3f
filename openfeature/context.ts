import type { EvaluationContext as OpenFeatureContext } from '@openfeature/core';
import type { EvaluationContext, JsonValue } from '../src/index';

/**
 * The members as the JSON they would be sent as (what `identify()` does with traits): a
 * `Date` becomes its ISO string, which the date operators read, and `undefined` is left out.
 * A context JSON cannot hold (a cycle) has no attributes rather than a read that throws.
 */
function toAttributes(members: Record<string, unknown>): Record<string, JsonValue> {
  try {
    return JSON.parse(JSON.stringify(members)) as Record<string, JsonValue>;
  } catch {
    return {};
  }
}

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
