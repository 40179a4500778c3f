import { SchemaError } from './errors';
import { SUPPORTED_SCHEMA_VERSION, type FlagSnapshot } from './snapshot-types';

export type ParsedSnapshot = { kind: 'ok'; snapshot: FlagSnapshot } | { kind: 'invalid'; error: SchemaError };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isVersion = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;

/**
 * Checks the envelope of a snapshot: schema version, version, environment and flag map.
 * Flags themselves are checked by the evaluator, which turns a malformed flag into a
 * default with a `PARSE_ERROR` instead of rejecting the whole snapshot.
 */
export function checkSnapshot(value: unknown, origin: string): ParsedSnapshot {
  const snapshot = (isObject(value) ? value : {}) as Record<string, unknown>;
  const problem = !isObject(value)
    ? 'is not a JSON object'
    : !isVersion(snapshot.schemaVersion)
      ? 'has no integer schemaVersion'
      : snapshot.schemaVersion !== SUPPORTED_SCHEMA_VERSION
        ? `has schemaVersion ${snapshot.schemaVersion}; this client supports ${SUPPORTED_SCHEMA_VERSION}`
        : !isVersion(snapshot.version)
          ? 'has no integer version >= 0'
          : typeof snapshot.environmentId !== 'string'
            ? 'has no string environmentId'
            : !isObject(snapshot.flags)
              ? 'has no flags object'
              : null;
  return problem
    ? { kind: 'invalid', error: new SchemaError(`${origin}: the snapshot ${problem}`) }
    : { kind: 'ok', snapshot: value as FlagSnapshot };
}

/** Parses a response body, then checks it with {@link checkSnapshot}. */
export function parseSnapshot(body: string, origin: string): ParsedSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    value = undefined;
  }
  return checkSnapshot(value, origin);
}
