import { SchemaError } from '../shared/errors';
import { isRecord, isString } from '../shared/guards';
import { SUPPORTED_SCHEMA_VERSION, type FlagSnapshot } from './snapshot-types';

export type ParsedSnapshot = { kind: 'ok'; snapshot: FlagSnapshot } | { kind: 'invalid'; error: SchemaError };

/**
 * Checks the envelope of a snapshot: schema version, version, environment and flag map.
 * Flags themselves are checked by the evaluator, which turns a malformed flag into a
 * default with a `PARSE_ERROR` instead of rejecting the whole snapshot.
 */
export function checkSnapshot(value: unknown, origin: string): ParsedSnapshot {
  const problem = !isRecord(value)
    ? 'is not a JSON object'
    : value.schemaVersion !== SUPPORTED_SCHEMA_VERSION
      ? `has schemaVersion ${JSON.stringify(value.schemaVersion)}; this client supports ${SUPPORTED_SCHEMA_VERSION}`
      : !(Number.isInteger(value.version) && (value.version as number) >= 0)
        ? 'has no integer version >= 0'
        : !isString(value.environmentId)
          ? 'has no string environmentId'
          : !isRecord(value.flags)
            ? 'has no flags object'
            : null;
  return problem
    ? { kind: 'invalid', error: new SchemaError(`${origin}: the snapshot ${problem}`) }
    : { kind: 'ok', snapshot: value as unknown as FlagSnapshot };
}
