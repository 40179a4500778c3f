import type { ClientStatus, ReadyResult } from './machine/client-state';
import type { EvaluationContext } from './evaluation/evaluation-types';
import type { FlagDefaults, FlagsView, KnownFlagKey } from './reads/flags-view';
import type { JsonValue } from './snapshot/snapshot-types';

export type { FlagDefaults, FlagsView, KnownFlagKey };

/**
 * The client `createClient<F, D>` makes: with a flags type `F` (one without an index
 * signature, as `flagplane types` writes), its reads take keys and types from `F` alone;
 * without, from the `defaults`' type `D`, and any other key is typed from its fallback.
 */
export type ClientOf<F extends FlagDefaults, D extends FlagDefaults> = string extends keyof F ? FlagsClient<D> : FlagsClient<F, never>;

/** What a `subscribe` listener receives. */
export interface ChangeEvent {
  /** Flag keys whose served value (or reason) changed; empty when only the status changed. */
  changed: ReadonlySet<string>;
  status: ClientStatus;
}

/**
 * A feature-flag client. Every read answers at once and never throws. Its reads are typed as
 * {@link FlagsView}'s: `FlagsClient<Flags, never>` is a client typed by a flags type.
 */
export interface FlagsClient<D extends FlagDefaults = FlagDefaults, Other extends string = string> extends FlagsView<D, Other> {
  /**
   * Resolves on the first snapshot (network, cache, bootstrap or another tab), at `readyTimeout`, or at
   * `close()`, whichever comes first. Never rejects.
   */
  ready(): Promise<ReadyResult>;
  /** Replaces the evaluation context; listeners hear only of the flags whose value changed. */
  setContext(context: EvaluationContext): void;
  /**
   * Replaces the local overrides (QA, tests): each key's value wins over the snapshot and
   * is reported with reason `OVERRIDE`. `setOverrides({})` clears them. Each value is deeply
   * frozen in place as it is taken, never copied: pass a copy to keep changing yours.
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
