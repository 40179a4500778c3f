import type { HttpRequest } from '../../src/http/http-types';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { harness } from './client-harness';
import { jsonResponse, response, snapshotServer, type Reply } from './fake-transport';
import { servingFlag } from './snapshots';

/**
 * A fake data plane: the snapshot route like snapshotServer, the events route answering
 * `eventsStatus()` and recording every batch, the identity route answering `overlays`.
 */
export function fakeDataPlane(snapshot: FlagSnapshot) {
  const snapshots = snapshotServer(snapshot);
  const batches: Array<{ sentAt: string; events: Array<Record<string, unknown>>; keepalive: boolean }> = [];
  const plane = {
    batches,
    eventsStatus: 202 as number,
    overlays: {} as Record<string, Record<string, unknown>>,
    identityReply: null as null | ((userId: string) => Reply | Promise<Reply>),
    publish: snapshots.publish,
    get events() {
      return batches.flatMap((batch) => batch.events);
    },
    handler(request: HttpRequest): Reply | Promise<Reply> {
      const url = new URL(request.url);
      if (url.pathname === '/sdk/v1/events') {
        if (plane.eventsStatus === 202) batches.push({ ...JSON.parse(request.body!), keepalive: request.keepalive === true });
        return response(plane.eventsStatus, plane.eventsStatus === 202 ? '{"accepted":1}' : '{"error":{"code":"x","message":"no"}}');
      }
      if (url.pathname === '/sdk/v1/identity') {
        const userId = url.searchParams.get('userId')!;
        if (plane.identityReply) return plane.identityReply(userId);
        return jsonResponse(200, { userId, traits: plane.overlays[userId] ?? {} });
      }
      return snapshots.handler(request);
    },
  };
  return plane;
}

/** A flag serving 'yes' to users whose `plan` trait is `plan`, else 'no'. */
export const byPlan = (plan: string): Flag => ({
  ...servingFlag('no'),
  variations: ['no', 'yes'],
  fallthrough: { variation: 0 },
  rules: [{ id: plan, conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: [plan] }], serve: { variation: 1 } }],
});

/** A ready client with events on (no flush timer) over a fakeDataPlane serving `snapshot`. */
export async function dataPlaneClient(snapshot: FlagSnapshot, options: Record<string, unknown> = {}) {
  const plane = fakeDataPlane(snapshot);
  const h = harness(plane.handler, { events: true, flushInterval: 0, ...options });
  await h.client.ready();
  return { ...h, plane };
}
