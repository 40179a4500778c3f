import type { EvaluationContext, EvaluationDetails } from '../evaluation/evaluation-types';
import type { JsonValue } from '../snapshot/snapshot-types';

/** Per-key fallback values; `get('x')` returns the type of `defaults.x`. */
export type FlagDefaults = Record<string, JsonValue>;

/**
 * The keys `D` declares, without an index signature: none for the plain `FlagDefaults` of a
 * client created without typed `defaults`, so that its reads are typed from the fallback.
 */
export type KnownFlagKey<D> = keyof { [K in keyof D as string extends K ? never : K]: D[K] } & string;

/**
 * The types a binding's `Register` interface declares (`flagplane/react`, `flagplane/vue`):
 * reads take keys and types from `R['flags']`, else from `R['defaults']`. Type-only, and not
 * exported by the core's entry: the bindings import them from this file.
 */
export type RegisteredDefaultsOf<R> = R extends { flags: infer F extends FlagDefaults } ? F : R extends { defaults: infer D extends FlagDefaults } ? D : FlagDefaults;

/** The registered flags or defaults, else `{}`: no key counts as known. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type KnownFlagsOf<R> = string extends keyof RegisteredDefaultsOf<R> ? {} : RegisteredDefaultsOf<R>;

/** The keys read beyond the registered ones: any string, or none when a flags type is registered. */
export type OtherKeyOf<R> = R extends { flags: FlagDefaults } ? never : string;

/**
 * What a registered key `K` read without a fallback may also be: `undefined` when a flags type
 * is registered and the registered defaults (if any) lack the key; nothing otherwise.
 */
export type UnsetKeyOf<R, K> = R extends { flags: FlagDefaults } ? (R extends { defaults: infer D } ? (K extends keyof D ? never : undefined) : undefined) : never;

/**
 * What a read without a fallback may serve besides its type: nothing when the types come from
 * `defaults` (they supply the value); `undefined` when they come from a flags type
 * (`createClient<Flags>`), which cannot say what the defaults cover: before the first
 * snapshot, the flag may have no value.
 */
export type Unset<Other extends string> = [Other] extends [never] ? undefined : never;

/** The key of {@link FlagsView}'s type-only member (no value at run time). */
export declare const flagTypes: unique symbol;

/**
 * Flag reads for one context. A client is one (for its own context); `forContext(client,
 * context)` makes others. Every read answers at once and never throws. What a read serves
 * is deeply frozen (assigning to it throws a `TypeError` in strict mode), except a fallback
 * passed to the call, which is served as given.
 *
 * `D` types the keys it declares; `Other` is what other keys may be read: any string (typed
 * from the fallback), or `never` for a client typed by a flags type (`createClient<Flags>`),
 * where a key the type does not declare, or a fallback of another type, is a compile error.
 */
export interface FlagsView<D extends FlagDefaults = FlagDefaults, Other extends string = string> {
  /** Type-only: the flag types, which `forContext` hands on to the view. Never set. */
  readonly [flagTypes]?: { flags: D; other: Other };
  /**
   * The flag's value for the context; else `fallback`, else the configured default. A
   * served value of another JSON type than the fallback yields the fallback.
   */
  get<K extends KnownFlagKey<D>>(key: K, fallback: D[K]): D[K];
  get<K extends KnownFlagKey<D>>(key: K, fallback?: undefined): D[K] | Unset<Other>;
  // As the React hooks are: a literal fallback reads as its JSON type (`'blue'` as `string`);
  // an explicit type argument (`get<'a' | 'b'>`) skips the three and is kept as it is.
  get(key: Other, fallback: boolean): boolean;
  get(key: Other, fallback: number): number;
  get(key: Other, fallback: string): string;
  get<T extends JsonValue>(key: Other, fallback: T): T;
  get(key: Other): JsonValue | undefined;
  // Again last: a call no overload takes is reported against the last one, which then names
  // the declared keys and their types (a flags-typed client has no other).
  get<K extends KnownFlagKey<D>>(key: K, fallback?: D[K]): D[K] | Unset<Other>;
  /**
   * The value with the reason it was served: `{ key, value, reason, variation, ruleId?,
   * version, errorCode? }`. Reasons follow OpenFeature's vocabulary (docs/evaluation.md).
   */
  getDetails<K extends KnownFlagKey<D>>(key: K, fallback: D[K]): EvaluationDetails<D[K]>;
  getDetails<K extends KnownFlagKey<D>>(key: K, fallback?: undefined): EvaluationDetails<D[K] | Unset<Other>>;
  getDetails(key: Other, fallback: boolean): EvaluationDetails<boolean>;
  getDetails(key: Other, fallback: number): EvaluationDetails<number>;
  getDetails(key: Other, fallback: string): EvaluationDetails<string>;
  getDetails<T extends JsonValue>(key: Other, fallback: T): EvaluationDetails<T>;
  getDetails(key: Other): EvaluationDetails<JsonValue | undefined>;
  getDetails<K extends KnownFlagKey<D>>(key: K, fallback?: D[K]): EvaluationDetails<D[K] | Unset<Other>>;
  /** Every flag's value, over the configured defaults. A stable object until something changes. */
  getAll(): Readonly<Record<string, JsonValue>>;
  /** The evaluation context the reads use. */
  getContext(): EvaluationContext;
}
