import type { ErrorCode, FlagMetadata, JsonValue as OpenFeatureJson, ResolutionDetails } from '@openfeature/core';
import type { EvaluationDetails, FlagsView, JsonValue } from '../src/index';

/** What each of flagplane's error codes means, as OpenFeature's `errorMessage`. */
const ERROR_MESSAGES: Record<string, string> = {
  PROVIDER_NOT_READY: 'flagplane holds no snapshot yet',
  FLAG_NOT_FOUND: 'the snapshot has no flag with this key',
  PARSE_ERROR: 'the flag is malformed in the snapshot',
  TYPE_MISMATCH: 'the flag serves a value of another type than the default',
  GENERAL: 'the flag could not be evaluated',
};

/** The snapshot version and the deciding rule, when there are. */
function metadataOf({ version, ruleId }: EvaluationDetails<unknown>): FlagMetadata {
  const metadata: FlagMetadata = {};
  if (version !== null) metadata.version = version;
  if (ruleId !== undefined) metadata.ruleId = ruleId;
  return metadata;
}

/**
 * flagplane's details as OpenFeature's: the reason as it is (flagplane's reasons are
 * OpenFeature's, plus `OVERRIDE`), the variation index as the `variant`, the error code as
 * it is, and `{ version, ruleId }` as flag metadata. On an error the value is `fallback`.
 */
export function toResolution<T>(details: EvaluationDetails<unknown>, fallback: T): ResolutionDetails<T> {
  const { errorCode } = details;
  return {
    value: errorCode ? fallback : (details.value as T),
    reason: details.reason,
    variant: details.variation === null ? undefined : String(details.variation),
    flagMetadata: metadataOf(details),
    ...(errorCode && { errorCode: errorCode as ErrorCode, errorMessage: ERROR_MESSAGES[errorCode] }),
  };
}

/** The four resolutions of a provider, each read from `view` (the client, or a view for the call's context). */
export const resolveFrom = {
  primitive<T extends boolean | string | number>(view: FlagsView, key: string, fallback: T): ResolutionDetails<T> {
    return toResolution(view.getDetails(key, fallback), fallback);
  },
  // OpenFeature's object type is any JSON object or array: flagplane's own type check would
  // refuse an array for an object default, so the kind is checked here.
  object<T extends OpenFeatureJson>(view: FlagsView, key: string, fallback: T): ResolutionDetails<T> {
    const details = view.getDetails(key);
    const value: JsonValue | undefined = details.value;
    if (details.errorCode || (value !== null && typeof value === 'object')) return toResolution(details, fallback);
    return toResolution({ ...details, errorCode: 'TYPE_MISMATCH' }, fallback);
  },
};
