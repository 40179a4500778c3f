import type { EvaluationContext } from '../evaluation/evaluation-types';
import type { FlagDefaults, flagTypes, FlagsView } from './flags-view';
import { createFlagValues, noContext } from './flag-values';
import { createReads } from './reads';
import { viewSources, type ViewSource } from './view-sources';

/** The reads of a view of `client`: its flag types, and the other keys it may read. */
type ViewOf<C> = C extends { readonly [flagTypes]?: { flags: infer D extends FlagDefaults; other: infer Other extends string } } ? FlagsView<D, Other> : FlagsView;

/** The source of a client flagplane did not make (a hand-written mock): no snapshot, so every read is its fallback. */
const noSource = (): ViewSource => ({
  scope: { snapshot: null, overrides: new Map() },
  identity: { bucketingKeyOf: (context) => context.userId! },
  readsFor: createReads(Object.create(null), null),
});

/**
 * The flags of `client` evaluated for `context`, leaving the client's own context alone: a
 * server rendering for many users keeps one client and makes a view per request. The view
 * reads the snapshot and overrides the client holds when it is made (one request, one
 * version), evaluates each flag on its first read, and reports its reads for
 * `context.userId` (else the client's anonymous id, which is also what buckets the rollouts
 * then). A standalone function rather than a method, so that browser bundles, which never
 * call it, leave it out. Given a client that neither `createClient` nor `createTestClient`
 * made, the view serves every read its fallback (reason `ERROR`, `PROVIDER_NOT_READY`).
 */
export function forContext<C extends FlagsView<any, any>>(client: C, context: EvaluationContext): ViewOf<C> {
  const source = viewSources.get(client) ?? noSource();
  const { snapshot, overrides } = source.scope;
  const viewContext = context ?? noContext();
  const user = source.identity.bucketingKeyOf(viewContext);
  const values = createFlagValues({ snapshot, context: viewContext, bucketingKey: user });
  const { get, getDetails, getAll } = source.readsFor({ values, overrides, snapshot, user });
  return { get, getDetails, getAll, getContext: () => viewContext } as ViewOf<C>;
}
