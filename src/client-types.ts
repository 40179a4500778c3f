import type { ClientStatus, ReadyResult } from './machine/client-state';
import type { FlagDefaults } from './options';
import type { EvaluationContext, EvaluationDetails } from './evaluation/evaluation-types';
import type { JsonValue } from './snapshot/snapshot-types';

/** What a `subscribe` listener receives. */
export interface ChangeEvent {
  /** Flag keys whose served value (or reason) changed; empty when only the status changed. */
  changed: ReadonlySet<string>;
  status: ClientStatus;
}

/** The key of {@link FlagsView}'s type-only member (no value at run time). */
export declare const flagTypes: unique symbol;

/**
 * Flag reads for one context. A client is one (for its own context); `forContext(client,
 * context)` makes others. Every read answers at once and never throws.
 */
export interface FlagsView<D extends FlagDefaults = FlagDefaults> {
  /** Type-only: the flag types, which `forContext` hands on to the view. Never set. */
  readonly [flagTypes]?: D;
  /**
   * The flag's value for the context; else `fallback`, else the configured default. A
   * served value of another JSON type than the fallback yields the fallback.
   */
  get<K extends keyof D & string>(key: K, fallback?: D[K]): D[K];
  get<T extends JsonValue>(key: string, fallback: T): T;
  get(key: string): JsonValue | undefined;
  /**
   * The value with the reason it was served: `{ key, value, reason, variation, ruleId?,
   * version, errorCode? }`. Reasons follow OpenFeature's vocabulary (docs/evaluation.md).
   */
  getDetails<K extends keyof D & string>(key: K, fallback?: D[K]): EvaluationDetails<D[K]>;
  getDetails<T extends JsonValue>(key: string, fallback: T): EvaluationDetails<T>;
  getDetails(key: string): EvaluationDetails<JsonValue | undefined>;
  /** Every flag's value, over the configured defaults. A stable object until something changes. */
  getAll(): Readonly<Record<string, JsonValue>>;
  /** The evaluation context the reads use. */
  getContext(): EvaluationContext;
}

/** A feature-flag client. Every read answers at once and never throws. */
export interface FlagsClient<D extends FlagDefaults = FlagDefaults> extends FlagsView<D> {
  /**
   * Resolves on the first snapshot (network, cache, bootstrap or another tab), at `readyTimeout`, or at
   * `close()`, whichever comes first. Never rejects.
   */
  ready(): Promise<ReadyResult>;
  /** Replaces the evaluation context; listeners hear only of the flags whose value changed. */
  setContext(context: EvaluationContext): void;
  /**
   * Replaces the local overrides (QA, tests): each key's value wins over the snapshot and
   * is reported with reason `OVERRIDE`. `setOverrides({})` clears them.
   */
  setOverrides(values: Record<string, JsonValue>): void;
  /** Readiness, connection, source, version and last error. A stable object until one changes. */
  getStatus(): ClientStatus;
  /**
   * Sets the context's `userId` and, when given, the session traits (its `attributes`),
   * queues an `identify` event and notifies the flags whose value changed. With
   * `remoteTraits`, then fetches the user's trait overlay and merges it under the session
   * traits; the promise resolves when that is done (or failed, through `onError`).
   */
  identify(userId: string, traits?: Record<string, JsonValue>): Promise<void>;
  /** Sends every buffered diagnostic event; resolves when the batch is sent or put back. */
  flush(): Promise<void>;
  /** Calls `listener` on every change; returns the function that unsubscribes it. */
  subscribe(listener: (event: ChangeEvent) => void): () => void;
  /** Fetches the snapshot now; resolves when that fetch has finished, whatever its outcome. */
  refresh(): Promise<void>;
  /**
   * Stops every timer, request and socket, after one last flush of the event buffer (the
   * promise resolves when it is done). Reads keep answering from the last snapshot.
   */
  close(): Promise<void>;
}
