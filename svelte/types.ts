import type { FlagDefaults, FlagsClient, KnownFlagKey } from '../src/index';

/**
 * Declare your client's type once to type every store from its flags:
 *
 * ```ts
 * declare module 'flagplane/svelte' {
 *   interface Register { client: typeof flags } // or FlagsClient<Flags, never>, ClientOf<Flags, typeof defaults>
 * }
 * ```
 *
 * A client typed by a flags type (`createClient<Flags>`) makes another key, or a fallback of
 * another type, a compile error; a client typed by its `defaults` types their keys and lets
 * other keys be typed from their fallback. Unregistered, every key is typed from its fallback.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Register {}

/** The registered client's type, else any client. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RegisteredClient = Register extends { client: infer C extends FlagsClient<any, any> } ? C : FlagsClient;

/** The registered client's flag types; `FlagDefaults` (no key known) when none is registered. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KnownFlags = RegisteredClient extends FlagsClient<infer D, any> ? D : FlagDefaults;

/** A key the registered client's flags declare. */
export type KnownKey = KnownFlagKey<KnownFlags>;

/** The keys read beyond the declared ones: any string, or none for a client typed by a flags type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OtherKey = RegisteredClient extends FlagsClient<any, infer O> ? O : string;

/** What a declared key read without a fallback may also be: `undefined` for a client typed by a flags type. */
export type Unset = [OtherKey] extends [never] ? undefined : never;
