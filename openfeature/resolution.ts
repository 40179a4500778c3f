import type { ErrorCode, FlagMetadata, JsonValue as OpenFeatureJson, ResolutionDetails } from '@openfeature/core';
import { heldSnapshot, type EvaluationDetails, type Flag, type FlagsView, type JsonValue } from '../src/index';

/** What each of flagplane's error codes means, as OpenFeature's `errorMessage`. */
const ERROR_MESSAGES: Record<string, string> = {
  PROVIDER_NOT_READY: 'flagplane holds no snapshot yet',
  FLAG_NOT_FOUND: 'the snapshot has no flag with this key',
  PARSE_ERROR: 'the flag is malformed in the snapshot',
  TYPE_MISMATCH: 'the flag serves a value of another type than the default',
  GENERAL: 'the flag could not be evaluated',
};

/** The flag's own `metadata`: its string, number and boolean members, and nothing else. */
function metadataOf(flag: Flag | undefined): FlagMetadata {
  const metadata: Record<string, string | number | boolean> = {};
  const source: unknown = flag?.metadata;
  if (source && typeof source === 'object' && !Array.isArray(source)) {
    for (const [name, value] of Object.entries(source)) {
      if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) metadata[name] = value;
    }
  }
  return metadata;
}

/**
 * OpenFeature's reason: flagplane's as it is, except for a flag that cannot serve anything
 * else — on, with no rules and a fixed fallthrough — which OpenFeature calls `STATIC`.
 */
function reasonOf({ reason }: EvaluationDetails<unknown>, flag: Flag | undefined): string {
  return reason === 'DEFAULT' && Array.isArray(flag?.rules) && flag.rules.length === 0 ? 'STATIC' : reason;
}

/**
 * flagplane's details as OpenFeature's: the reason (above), the served variation's name as
 * the `variant` (its index, as a string, for a flag without `variationKeys`), the error code
 * as it is, and the flag's own `metadata` as flag metadata. On an error the value is
 * `fallback`. `flag` is the flag in the snapshot the details were evaluated from.
 */
export function toResolution<T>(details: EvaluationDetails<unknown>, fallback: T, flag: Flag | undefined): ResolutionDetails<T> {
  const { errorCode, variation } = details;
  return {
    value: errorCode ? fallback : (details.value as T),
    reason: reasonOf(details, flag),
    variant: details.variationKey ?? (variation === null ? undefined : String(variation)),
    flagMetadata: metadataOf(flag),
    ...(errorCode && { errorCode: errorCode as ErrorCode, errorMessage: ERROR_MESSAGES[errorCode] }),
  };
}

/** The flag `key` of the snapshot `client` serves: own members only, as the client reads them. */
const flagOf = (client: object, key: string): Flag | undefined => {
  const flags = heldSnapshot(client)?.flags;
  return flags && Object.hasOwn(flags, key) ? flags[key] : undefined;
};

/**
 * The four resolutions of a provider, each read from `view` (the client, or a view of it for
 * the call's context), with the flag's definition from `client`'s snapshot.
 */
export const resolveFrom = {
  primitive<T extends boolean | string | number>(client: object, view: FlagsView, key: string, fallback: T): ResolutionDetails<T> {
    return toResolution(view.getDetails(key, fallback), fallback, flagOf(client, key));
  },
  // OpenFeature's object type is any JSON object or array: flagplane's own type check would
  // refuse an array for an object default, so the kind is checked here.
  object<T extends OpenFeatureJson>(client: object, view: FlagsView, key: string, fallback: T): ResolutionDetails<T> {
    const details = view.getDetails(key);
    const value: JsonValue | undefined = details.value;
    const flag = flagOf(client, key);
    if (details.errorCode || (value !== null && typeof value === 'object')) return toResolution(details, fallback, flag);
    return toResolution({ ...details, errorCode: 'TYPE_MISMATCH' }, fallback, flag);
  },
};
