/**
 * Where the admin change feed hears of changes: the server's actions (the admin API and the
 * programmatic API share them), other instances' changes over Redis, and the SDK event routes.
 * Each source is wrapped, so the parts it wraps stay unaware of the feed.
 */
import type { ControlChange, ReferenceServerStores } from '../stores/contracts';
import type { EventLog } from '../stores/event-log';
import type { WorkingCopy } from '../stores/working-copy';
import type { AdminChange, ReceivedKind } from './admin-change-kinds';
import type { EventStores } from './sdk';
import type { ServerActions } from './server-actions';

type Announce = (change: AdminChange) => void;
type Received = (environmentId: string, kind: ReceivedKind, count: number) => void;

/** The actions, each announcing what it changed once it has. */
export function announcingActions(actions: ServerActions, working: WorkingCopy, announce: Announce): ServerActions {
  const published = <T extends { environmentId: string; version: number }>(result: T): T => {
    announce({ kind: 'published', environmentId: result.environmentId, version: result.version });
    return result;
  };
  return {
    publish: async (environmentId, snapshot, owned) => published(await actions.publish(environmentId, snapshot, owned)),
    putFlag: async (environmentId, key, flag) => published(await actions.putFlag(environmentId, key, flag)),
    patchFlag: async (environmentId, key, members) => published(await actions.patchFlag(environmentId, key, members)),
    deleteFlag: async (environmentId, key) => published(await actions.deleteFlag(environmentId, key)),
    async resync(environmentId) {
      const result = await actions.resync(environmentId);
      announce({ kind: 'resync', environmentId });
      return result;
    },
    async createKey(environmentId, kind) {
      const record = await actions.createKey(environmentId, kind);
      announce({ kind: 'key-added', environmentId: record.environmentId, key: record.key });
      return record;
    },
    async revokeKey(key) {
      await actions.revokeKey(key);
      announce({ kind: 'key-revoked', environmentId: working.keys.get(key)?.environmentId ?? null, key });
    },
    async setTraits(environmentId, userId, traits) {
      const result = await actions.setTraits(environmentId, userId, traits);
      announce({ kind: 'traits-set', environmentId, userId });
      return result;
    },
  };
}

/**
 * Another instance's change, once applied to this instance's working copy, as the feed tells
 * it; `undefined` for a version that arrived after a newer one (it moved nothing).
 */
export function remoteAdminChange(change: ControlChange, working: WorkingCopy): AdminChange | undefined {
  switch (change.kind) {
    case 'published': {
      const { environmentId, snapshot } = change;
      return working.environments.get(environmentId)?.kv.current === snapshot.version ? { kind: 'published', environmentId, version: snapshot.version } : undefined;
    }
    case 'key-added':
      return { kind: 'key-added', environmentId: change.record.environmentId, key: change.record.key };
    case 'key-revoked':
      return { kind: 'key-revoked', environmentId: working.keys.get(change.key)?.environmentId ?? null, key: change.key };
    case 'traits-set':
      return { kind: 'traits-set', environmentId: change.environmentId, userId: change.userId };
    case 'resync':
      return { kind: 'resync', environmentId: change.environmentId };
  }
}

/** Counts `items` per environment. */
function countPerEnvironment(items: ReadonlyArray<{ environmentId: string }>, kind: ReceivedKind, received: Received): void {
  const counts = new Map<string, number>();
  for (const { environmentId } of items) counts.set(environmentId, (counts.get(environmentId) ?? 0) + 1);
  for (const [environmentId, count] of counts) received(environmentId, kind, count);
}

/** `store` with its `append` replaced; every other member is the store's own (through the prototype). */
function withAppend<T extends object>(store: T, append: unknown): T {
  return Object.assign(Object.create(store) as T, { append });
}

/**
 * The stores the SDK routes write accepted events to, each counting what it stored for the feed.
 * `stores` keeps its identity where it matters: only `diagnostics` is a counting view of the same log.
 */
export function countingEventStores(stores: ReferenceServerStores, events: EventStores, received: Received) {
  const diagnostics = withAppend<EventLog>(stores.diagnostics, (event: Parameters<EventLog['append']>[0]) => {
    stores.diagnostics.append(event);
    received(event.environmentId, 'diagnostics', 1);
  });
  const counting: EventStores = {
    identifyQueue: withAppend(events.identifyQueue, async (rows: Parameters<EventStores['identifyQueue']['append']>[0]) => {
      await events.identifyQueue.append(rows);
      countPerEnvironment(rows, 'identify', received);
    }),
    analytics: withAppend(events.analytics, async (stored: Parameters<EventStores['analytics']['append']>[0]) => {
      await events.analytics.append(stored);
      countPerEnvironment(stored, 'analytics', received);
    }),
  };
  const counted: ReferenceServerStores = { ...stores, diagnostics };
  return { stores: counted, events: counting };
}
