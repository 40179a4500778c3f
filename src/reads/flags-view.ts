import type { EvaluationContext, EvaluationDetails } from '../evaluation/evaluation-types';
import type { JsonValue } from '../snapshot/snapshot-types';

/** Per-key fallback values; `get('x')` returns the type of `defaults.x`. */
export type FlagDefaults = Record<string, JsonValue>;

/**
 * The keys `D` declares, without an index signature: none for the plain `FlagDefaults` of a
 * client created without typed `defaults`, so that its reads are typed from the fallback.
 */
export type KnownFlagKey<D> = keyof { [K in keyof D as string extends K ? never : K]: D[K] } & string;

/** The key of {@link FlagsView}'s type-only member (no value at run time). */
export declare const flagTypes: unique symbol;

/**
 * Flag reads for one context. A client is one (for its own context); `forContext(client,
 * context)` makes others. Every read answers at once and never throws. What a read serves
 * is deeply frozen (assigning to it throws a `TypeError` in strict mode), except a fallback
 * passed to the call, which is served as given.
 */
export interface FlagsView<D extends FlagDefaults = FlagDefaults> {
  /** Type-only: the flag types, which `forContext` hands on to the view. Never set. */
  readonly [flagTypes]?: D;
  /**
   * The flag's value for the context; else `fallback`, else the configured default. A
   * served value of another JSON type than the fallback yields the fallback.
   */
  get<K extends KnownFlagKey<D>>(key: K, fallback?: D[K]): D[K];
  // As the React hooks are: a literal fallback reads as its JSON type (`'blue'` as `string`);
  // an explicit type argument (`get<'a' | 'b'>`) skips the three and is kept as it is.
  get(key: string, fallback: boolean): boolean;
  get(key: string, fallback: number): number;
  get(key: string, fallback: string): string;
  get<T extends JsonValue>(key: string, fallback: T): T;
  get(key: string): JsonValue | undefined;
  /**
   * The value with the reason it was served: `{ key, value, reason, variation, ruleId?,
   * version, errorCode? }`. Reasons follow OpenFeature's vocabulary (docs/evaluation.md).
   */
  getDetails<K extends KnownFlagKey<D>>(key: K, fallback?: D[K]): EvaluationDetails<D[K]>;
  getDetails(key: string, fallback: boolean): EvaluationDetails<boolean>;
  getDetails(key: string, fallback: number): EvaluationDetails<number>;
  getDetails(key: string, fallback: string): EvaluationDetails<string>;
  getDetails<T extends JsonValue>(key: string, fallback: T): EvaluationDetails<T>;
  getDetails(key: string): EvaluationDetails<JsonValue | undefined>;
  /** Every flag's value, over the configured defaults. A stable object until something changes. */
  getAll(): Readonly<Record<string, JsonValue>>;
  /** The evaluation context the reads use. */
  getContext(): EvaluationContext;
}
