import { readable, type Readable } from 'svelte/store';
import type { ClientStatus, EvaluationDetails, FlagsClient, JsonValue } from '../src/index';
import { clientFor } from './context';
import type { KnownFlags, KnownKey, OtherKey, Unset } from './types';

/**
 * A store over `client`: subscribed to the client only while it has subscribers (Svelte's
 * `readable` start and stop), told only of the events `key` names (every event without a
 * key), and set only when `read` returns another object: Svelte's stores notify on every
 * `set` of an object, equal or not, and the client keeps a value's identity while it holds.
 */
function clientStore<T>(client: FlagsClient, key: string | undefined, read: (client: FlagsClient) => T): Readable<T> {
  return readable<T>(undefined as T, (set) => {
    let current = read(client);
    set(current);
    return client.subscribe((event) => {
      if (key !== undefined && !event.changed.has(key)) return;
      const next = read(client);
      if (!Object.is(next, current)) set((current = next));
    });
  });
}

/**
 * A store of a flag's value for the client's context; it changes only when that flag does.
 * Create it while the component initialises; read it as `$store`, or `fromStore(store).current`
 * in runes. Typed from the registered client (`Register`); never throws on a read: before the
 * first snapshot, for an unknown key or a value of another JSON type, the fallback (else the
 * client's default) is served, as `client.get` serves it.
 */
export function flag<K extends KnownKey>(key: K, fallback: KnownFlags[K]): Readable<KnownFlags[K]>;
export function flag<K extends KnownKey>(key: K, fallback?: undefined): Readable<KnownFlags[K] | Unset>;
export function flag(key: OtherKey, fallback: boolean): Readable<boolean>;
export function flag(key: OtherKey, fallback: number): Readable<number>;
export function flag(key: OtherKey, fallback: string): Readable<string>;
export function flag<T extends JsonValue>(key: OtherKey, fallback: T): Readable<T>;
export function flag(key: OtherKey): Readable<JsonValue | undefined>;
// Again last, so that a call no overload takes is reported against the registered keys and types.
export function flag<K extends KnownKey>(key: K, fallback?: KnownFlags[K]): Readable<KnownFlags[K] | Unset>;
export function flag(key: string, fallback?: JsonValue): Readable<JsonValue | undefined> {
  return clientStore(clientFor('flag()'), key, (client) => client.get(key, fallback!));
}

const sameDetails = (a: EvaluationDetails<unknown>, b: EvaluationDetails<unknown>): boolean => {
  const keys = Object.keys(a) as Array<keyof typeof a>;
  return keys.length === Object.keys(b).length && keys.every((name) => Object.is(a[name], b[name]));
};

/**
 * A store of a flag's value with the reason it was served (`{ key, value, reason, variation,
 * ruleId?, version, errorCode? }`); it changes when one of those does (the version with every
 * new snapshot). Typed like `flag`.
 */
export function flagDetails<K extends KnownKey>(key: K, fallback: KnownFlags[K]): Readable<EvaluationDetails<KnownFlags[K]>>;
export function flagDetails<K extends KnownKey>(key: K, fallback?: undefined): Readable<EvaluationDetails<KnownFlags[K] | Unset>>;
export function flagDetails(key: OtherKey, fallback: boolean): Readable<EvaluationDetails<boolean>>;
export function flagDetails(key: OtherKey, fallback: number): Readable<EvaluationDetails<number>>;
export function flagDetails(key: OtherKey, fallback: string): Readable<EvaluationDetails<string>>;
export function flagDetails<T extends JsonValue>(key: OtherKey, fallback: T): Readable<EvaluationDetails<T>>;
export function flagDetails(key: OtherKey): Readable<EvaluationDetails<JsonValue | undefined>>;
export function flagDetails<K extends KnownKey>(key: K, fallback?: KnownFlags[K]): Readable<EvaluationDetails<KnownFlags[K] | Unset>>;
export function flagDetails(key: string, fallback?: JsonValue): Readable<EvaluationDetails<JsonValue | undefined>> {
  let last: EvaluationDetails<JsonValue | undefined> | undefined;
  // Every event, not only this key's: the details carry the snapshot's version (and
  // PROVIDER_NOT_READY turns into FLAG_NOT_FOUND), which change without the flag. A default
  // is served as a new object per read: the previous one is kept while it is equal.
  return clientStore(clientFor('flagDetails()'), undefined, (client) => {
    const next = client.getDetails(key, fallback!);
    return last && sameDetails(last, next) ? last : (last = next);
  });
}

/** A store of the client's `{ status, connection, source, version, error }`; it changes when one of them does. */
export function flagsStatus(): Readable<ClientStatus> {
  return clientStore(clientFor('flagsStatus()'), undefined, (client) => client.getStatus());
}
