import type { KnownFlagKey } from '../src/index';
// Type-only, from the core's file rather than its entry: a name added to src/index.ts changes
// the minifier's choice of names (esbuild weighs the entry's text) and so the core's gzip size.
import type { KnownFlagsOf, OtherKeyOf, RegisteredDefaultsOf, UnsetKeyOf } from '../src/reads/flags-view';

/**
 * Declare your flags once to type every composable: the flags type `flagplane types` writes,
 * your defaults' type, or both.
 *
 * ```ts
 * declare module 'flagplane/vue' {
 *   interface Register { flags: Flags; defaults: typeof defaults }
 * }
 * ```
 *
 * With `defaults`, `useFlag('new-checkout')` is a `Readonly<Ref<boolean>>` when
 * `defaults['new-checkout']` is a boolean, and other keys are typed from their fallback. With
 * `flags`, the composables read only its keys, each a value of its type: another key or
 * fallback is a compile error. Use a type alias or `typeof`, not an interface.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Register {}

/** The registered flags type, else the registered defaults' type, else `FlagDefaults`. */
export type RegisteredDefaults = RegisteredDefaultsOf<Register>;

/** The registered flags type, else the registered defaults' type, else `{}` so that no key counts as known. */
export type KnownFlags = KnownFlagsOf<Register>;

/** A registered flag key: one the flags or defaults declare (an index signature declares none). */
export type KnownKey = KnownFlagKey<KnownFlags>;

/** The keys read beyond the registered ones: any string, or none when a flags type is registered. */
export type OtherKey = OtherKeyOf<Register>;

/**
 * What a registered key read without a fallback may also be: `undefined` when a flags type is
 * registered and the registered defaults (if any) do not have the key; nothing otherwise.
 */
export type UnsetOf<K> = UnsetKeyOf<Register, K>;
