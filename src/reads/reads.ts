import type { FlagsView } from './flags-view';
import type { EvaluationDetails } from '../evaluation/evaluation-types';
import type { EventSender } from '../events/event-sender';
import type { FlagSnapshot, JsonValue } from '../snapshot/snapshot-types';
import { resolveRead, type FlagValues } from './flag-values';
import type { Overrides } from './overrides';

/** A reader's `get`, `getDetails` and `getAll`, and `changed()`, which tells `getAll` to build anew. */
export interface Reads extends Pick<FlagsView, 'get' | 'getDetails' | 'getAll'> {
  changed(): void;
}

/**
 * What a reader serves: the flag values (the client's own, or a view's), the overrides and
 * the snapshot, and whom its reads are reported for. Read at each read: the client updates
 * its scope in place, a view's stays as it was made.
 */
export interface ReadScope {
  values: FlagValues;
  overrides: Overrides;
  snapshot: FlagSnapshot | null;
  user: string;
}

/** The reads over a scope. */
export type ReadsFor = (scope: ReadScope) => Reads;

/**
 * The read path of a client: its configured `defaults` (an object without a prototype) and
 * the event sender its reads are reported to (`null` with events off).
 */
export function createReads(defaults: Record<string, JsonValue | undefined>, events: Pick<EventSender, 'track'> | null): ReadsFor {
  /** One read; `silent` reads report no event (`getAll`). */
  function read(
    { values, overrides, snapshot, user }: ReadScope,
    key: string,
    fallback: JsonValue | undefined,
    silent?: boolean,
  ): EvaluationDetails<JsonValue | undefined> {
    const override = overrides.size ? overrides.get(key) : undefined;
    // One lookup finds the details and the read tracker's mark.
    const entry = override ? undefined : values.entry(key);
    // An override is served like a flag: of another JSON type than the fallback, it is not.
    const result = resolveRead(key, override ?? entry!.details, override ?? snapshot, fallback === undefined ? defaults[key] : fallback);
    if (!silent) {
      try {
        // The mark belongs to the served details only: a fallback served instead has none.
        events?.track(result as EvaluationDetails, user, result === entry?.details ? entry : undefined);
      } catch {
        // A read never throws, not even for a key that is not a string.
      }
    }
    return result;
  }

  return (scope) => {
    const details = (key: string, fallback: JsonValue | undefined, silent?: boolean) => read(scope, key, fallback, silent);
    let all: Readonly<Record<string, JsonValue>> | null = null;
    return {
      get: ((key: string, fallback?: JsonValue) => details(key, fallback).value) as FlagsView['get'],
      getDetails: ((key: string, fallback?: JsonValue) => details(key, fallback)) as FlagsView['getDetails'],
      getAll: () =>
        // Built from entries: a flag named `__proto__` stays a key, never the prototype. Frozen:
        // the next getAll() returns the same object.
        (all ??= Object.freeze(
          Object.fromEntries(
            [...new Set([...Object.keys(defaults), ...scope.values.readAll(), ...scope.overrides.keys()])]
              .map((key) => [key, details(key, undefined, true).value])
              .filter(([, value]) => value !== undefined),
          ),
        )),
      changed: () => void (all = null),
    };
  };
}
