import { getCurrentScope, inject, onScopeDispose, shallowRef, ssrContextKey, toRef, type Ref } from 'vue';
import type { ChangeEvent, ClientStatus, EvaluationDetails, FlagsClient, JsonValue } from '../src/index';
import { serverStatus, useClient } from './plugin';
import type { KnownFlags, KnownKey, OtherKey, RegisteredDefaults, UnsetOf } from './types';

/**
 * A read-only ref of `read(client)`, set again only when a change event passes `wants`; a ref
 * set to the same value (the client's stable identities) triggers nothing. The listener goes
 * with the scope (the component): none is left after unmount. A server render subscribes to
 * nothing, since it is never unmounted.
 */
function useClientRef<T>(name: string, wants: string | ((event: ChangeEvent) => unknown), read: (client: FlagsClient) => T, readOnServer = read): Readonly<Ref<T>> {
  const client = useClient(name);
  const onServer = inject(ssrContextKey, null);
  const state = shallowRef((onServer ? readOnServer : read)(client));
  if (!onServer) {
    const off = client.subscribe((event) => {
      if (typeof wants === 'string' ? event.changed.has(wants) : wants(event)) state.value = read(client);
    });
    if (getCurrentScope()) onScopeDispose(off);
  }
  return toRef(() => state.value);
}

const anyFlag = (event: ChangeEvent) => event.changed.size;
const always = () => true;

/**
 * A flag's value for the current context, as a read-only ref that changes only when that flag
 * does. Typed like `client.get` from the registered flags or defaults (see `Register`). Never
 * throws: before the first snapshot, for an unknown key or a value of another JSON type, the
 * fallback (else the client's default) is served.
 */
export function useFlag<K extends KnownKey>(key: K, fallback: KnownFlags[K]): Readonly<Ref<KnownFlags[K]>>;
export function useFlag<K extends KnownKey>(key: K, fallback?: undefined): Readonly<Ref<KnownFlags[K] | UnsetOf<K>>>;
export function useFlag(key: OtherKey, fallback: boolean): Readonly<Ref<boolean>>;
export function useFlag(key: OtherKey, fallback: number): Readonly<Ref<number>>;
export function useFlag(key: OtherKey, fallback: string): Readonly<Ref<string>>;
export function useFlag<T extends JsonValue>(key: OtherKey, fallback: T): Readonly<Ref<T>>;
export function useFlag(key: OtherKey): Readonly<Ref<JsonValue | undefined>>;
// Again last, so that a call no overload takes is reported against the registered keys and types.
export function useFlag<K extends KnownKey>(key: K, fallback?: KnownFlags[K]): Readonly<Ref<KnownFlags[K] | UnsetOf<K>>>;
export function useFlag(key: string, fallback?: JsonValue): Readonly<Ref<JsonValue | undefined>> {
  return useClientRef('useFlag', key, (client) => client.get(key, fallback!));
}

type Details = EvaluationDetails<JsonValue | undefined>;
const sameDetails = (a: Details, b: Details) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([name, value]) => Object.is(value, b[name as keyof Details]));

/**
 * A flag's value with the reason it was served (`{ key, value, reason, variation, ruleId?,
 * version, errorCode? }`), as a read-only ref that changes when one of those does (the version
 * with every new snapshot). Typed like `useFlag`.
 */
export function useFlagDetails<K extends KnownKey>(key: K, fallback: KnownFlags[K]): Readonly<Ref<EvaluationDetails<KnownFlags[K]>>>;
export function useFlagDetails<K extends KnownKey>(key: K, fallback?: undefined): Readonly<Ref<EvaluationDetails<KnownFlags[K] | UnsetOf<K>>>>;
export function useFlagDetails(key: OtherKey, fallback: boolean): Readonly<Ref<EvaluationDetails<boolean>>>;
export function useFlagDetails(key: OtherKey, fallback: number): Readonly<Ref<EvaluationDetails<number>>>;
export function useFlagDetails(key: OtherKey, fallback: string): Readonly<Ref<EvaluationDetails<string>>>;
export function useFlagDetails<T extends JsonValue>(key: OtherKey, fallback: T): Readonly<Ref<EvaluationDetails<T>>>;
export function useFlagDetails(key: OtherKey): Readonly<Ref<EvaluationDetails<JsonValue | undefined>>>;
export function useFlagDetails<K extends KnownKey>(key: K, fallback?: KnownFlags[K]): Readonly<Ref<EvaluationDetails<KnownFlags[K] | UnsetOf<K>>>>;
export function useFlagDetails(key: string, fallback?: JsonValue): Readonly<Ref<Details>> {
  // A read that serves a default makes a new object each time: keep the last while it is equal.
  let last: Details | undefined;
  // Every event is heard: the details carry the snapshot's version, which changes without the flag.
  return useClientRef('useFlagDetails', always, (client) => {
    const next = client.getDetails(key, fallback!);
    return last && sameDetails(last, next) ? last : (last = next);
  });
}

/** Every flag's value over the defaults (debugging panels), as a read-only ref that changes with any flag. */
export function useFlags(): Readonly<Ref<Readonly<Record<string, JsonValue>>>> {
  return useClientRef('useFlags', anyFlag, (client) => client.getAll());
}

/**
 * The client's `{ status, connection, source, version, error }`, as a read-only ref that
 * changes when one of them does. A server render shows the status the browser's client starts with.
 */
export function useFlagsStatus(): Readonly<Ref<ClientStatus>> {
  return useClientRef(
    'useFlagsStatus',
    always,
    (client) => client.getStatus(),
    (client) => serverStatus.get(client) ?? client.getStatus(),
  );
}

/** The app's client, for `setContext`, `identify`, `setOverrides`, `refresh`. */
export function useFlagsClient(): FlagsClient<RegisteredDefaults, OtherKey> {
  return useClient('useFlagsClient') as FlagsClient<RegisteredDefaults, OtherKey>;
}
