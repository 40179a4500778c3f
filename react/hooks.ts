'use client';
import { useCallback, useRef, useSyncExternalStore } from 'react';
import type { ChangeEvent, ClientStatus, EvaluationDetails, FlagsClient, JsonValue } from '../src/index';
import { serverStatus, useClient } from './context';
import type { KnownFlags, KnownKey, OtherKey, RegisteredDefaults, UnsetOf } from './types';

/**
 * Reads the client through `useSyncExternalStore`. `wants` filters change events before
 * React hears of them, so a change to flag A never even runs the snapshot of a reader of
 * B; the client's stable identities (values, `getAll()`, `getStatus()`) then make React
 * skip the render when an event it hears leaves the snapshot unchanged.
 */
function useClientStore<T>(
  hook: string,
  wants: string | ((event: ChangeEvent) => unknown),
  read: (client: FlagsClient) => T,
  readOnServer = read,
): T {
  const client = useClient(hook);
  const subscribe = useCallback(
    (notify: () => void) =>
      client.subscribe((event) => {
        if (typeof wants === 'string' ? event.changed.has(wants) : wants(event)) notify();
      }),
    // `wants` is a key, or one of the module-level functions below: both are stable.
    [client, wants],
  );
  return useSyncExternalStore(
    subscribe,
    () => read(client),
    () => readOnServer(client),
  );
}

const anyFlag = (event: ChangeEvent) => event.changed.size;
const always = () => true;

/**
 * A flag's value for the current context; re-renders only when that flag changes.
 * A registered key is typed from the registered flags or defaults (see `Register`); any
 * other from its fallback, unless a flags type is registered: then it is a compile error. Never throws: before the first snapshot, for an unknown key
 * or a value of another JSON type, the fallback (else the client's default) is served.
 */
export function useFlag<K extends KnownKey>(key: K, fallback: KnownFlags[K]): KnownFlags[K];
export function useFlag<K extends KnownKey>(key: K, fallback?: undefined): KnownFlags[K] | UnsetOf<K>;
export function useFlag(key: OtherKey, fallback: boolean): boolean;
export function useFlag(key: OtherKey, fallback: number): number;
export function useFlag(key: OtherKey, fallback: string): string;
export function useFlag<T extends JsonValue>(key: OtherKey, fallback: T): T;
export function useFlag(key: OtherKey): JsonValue | undefined;
// Again last, so that a call no overload takes is reported against the registered keys and types.
export function useFlag<K extends KnownKey>(key: K, fallback?: KnownFlags[K]): KnownFlags[K] | UnsetOf<K>;
export function useFlag(key: string, fallback?: JsonValue): JsonValue | undefined {
  return useClientStore('useFlag', key, (client) => client.get(key, fallback!));
}

const sameDetails = (a: EvaluationDetails<unknown>, b: EvaluationDetails<unknown>): boolean => {
  const keys = Object.keys(a) as Array<keyof typeof a>;
  return keys.length === Object.keys(b).length && keys.every((name) => Object.is(a[name], b[name]));
};

/**
 * A flag's value with the reason it was served (`{ key, value, reason, variation, ruleId?,
 * version, errorCode? }`); re-renders only when those change (the version with every new
 * snapshot). Typed like `useFlag`.
 */
export function useFlagDetails<K extends KnownKey>(key: K, fallback: KnownFlags[K]): EvaluationDetails<KnownFlags[K]>;
export function useFlagDetails<K extends KnownKey>(key: K, fallback?: undefined): EvaluationDetails<KnownFlags[K] | UnsetOf<K>>;
export function useFlagDetails(key: OtherKey, fallback: boolean): EvaluationDetails<boolean>;
export function useFlagDetails(key: OtherKey, fallback: number): EvaluationDetails<number>;
export function useFlagDetails(key: OtherKey, fallback: string): EvaluationDetails<string>;
export function useFlagDetails<T extends JsonValue>(key: OtherKey, fallback: T): EvaluationDetails<T>;
export function useFlagDetails(key: OtherKey): EvaluationDetails<JsonValue | undefined>;
export function useFlagDetails<K extends KnownKey>(key: K, fallback?: KnownFlags[K]): EvaluationDetails<KnownFlags[K] | UnsetOf<K>>;
export function useFlagDetails(key: string, fallback?: JsonValue): EvaluationDetails<JsonValue | undefined> {
  // Defaults served for an error are a new object per read: keep the previous one while
  // it is equal, or useSyncExternalStore would see a change on every read.
  const last = useRef<EvaluationDetails<JsonValue | undefined>>(null);
  // Every change is heard, not only this key's: the details carry the snapshot's version
  // (and PROVIDER_NOT_READY turns into FLAG_NOT_FOUND), which change without the flag.
  return useClientStore('useFlagDetails', always, (client) => {
    const next = client.getDetails(key, fallback!);
    return last.current && sameDetails(last.current, next) ? last.current : (last.current = next);
  });
}

/** Every flag's value over the defaults (debugging panels); re-renders on any flag change. */
export function useFlags(): Readonly<Record<string, JsonValue>> {
  return useClientStore('useFlags', anyFlag, (client) => client.getAll());
}

/**
 * The client's `{ status, connection, source, version, error }`; re-renders when one of
 * them changes. Server rendering reports the status the browser's client starts with.
 */
export function useFlagsStatus(): ClientStatus {
  return useClientStore(
    'useFlagsStatus',
    always,
    (client) => client.getStatus(),
    (client) => serverStatus.get(client) ?? client.getStatus(),
  );
}

/** The provider's client, for `setContext`, `setOverrides`, `refresh` (and `identify`). */
export function useFlagsClient(): FlagsClient<RegisteredDefaults, OtherKey> {
  return useClient('useFlagsClient') as FlagsClient<RegisteredDefaults, OtherKey>;
}
