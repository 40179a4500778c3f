import type { EvaluationContext } from '../evaluation/evaluation-types';
import type { FlagSnapshot } from '../snapshot/snapshot-types';
import type { Overrides } from './overrides';
import type { ReadsFor } from './reads';

/** What `forContext` needs of a client: what it serves now, whom a context buckets by, and its read path. */
export interface ViewSource {
  /** What the client serves, read when a view is made. */
  readonly scope: { readonly snapshot: FlagSnapshot | null; readonly overrides: Overrides };
  /** Whom a context buckets by: its userId, else the client's anonymous id. */
  readonly identity: { bucketingKeyOf(context: EvaluationContext): string };
  readsFor: ReadsFor;
}

/**
 * Each client's view source, registered when the client is made. Kept apart from the client
 * object so that `forContext`, which only servers call, is a function a browser bundle drops.
 */
export const viewSources = new WeakMap<object, ViewSource>();
