import type { EventLog } from './event-log';
import type { IdentifyLog } from './identify-log';
import type { AnalyticsStore, ControlChange, ControlSeed, ControlStore, IdentifyQueueStore } from './contracts';
import { createMemoryAnalyticsStore, createMemoryIdentifyQueueStore } from './memory-event-stores';
import { createMemoryControlStore } from './memory-control-store';
import type { ModuleImporter } from './optional-package';
import { openPostgresEventStores } from './postgres-event-stores';
import { openRedisControlStore } from './redis-control-store';
import type { TableRetention } from './postgres-retention';
import type { WorkingCopy, WorkingCopyBounds } from './working-copy';
import { workingCopyFrom } from './working-copy';

export interface StoreOptions {
  redis?: string | undefined;
  redisPrefix?: string | undefined;
  postgres?: string | undefined;
  onError?: (error: unknown) => void;
  /** Test seam: how `ioredis` and `pg` are imported. */
  importer?: ModuleImporter;
  /** What the working copy keeps at most. @default no bound */
  bounds?: WorkingCopyBounds;
  /** What Redis and Postgres keep (docs/reference-server.md, "Retention"). @default everything */
  retention?: EngineRetention;
}

/** What the engines keep, and where what they prune is counted. */
export interface EngineRetention {
  /** Snapshot versions kept per environment on Redis, the current one included. */
  snapshotVersions: number;
  events: TableRetention;
  identifyRows: TableRetention;
  onPruned(what: 'snapshotVersions' | 'events' | 'identifyRows', count: number): void;
}

/** The stores of one instance, opened on their engines. */
export interface InstanceStores {
  readonly control: ControlStore;
  readonly working: WorkingCopy;
  readonly identifyQueue: IdentifyQueueStore;
  readonly analytics: AnalyticsStore;
  /** Sends other instances' changes to `listener`, those heard since start first. */
  listen(listener: (change: ControlChange) => void): void;
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

/** The engines' retention at the server's limits (http/limits.ts); `onPruned` counts what they remove. */
export function retentionOf(
  limits: { snapshotVersions: number; eventsPerKind: number; identifyRows: number; eventsMaxAgeHours: number; identifyMaxAgeHours: number },
  onPruned: EngineRetention['onPruned'],
): EngineRetention {
  return {
    snapshotVersions: limits.snapshotVersions,
    events: { kept: limits.eventsPerKind, maxAgeMs: limits.eventsMaxAgeHours * HOUR_MS },
    identifyRows: { kept: limits.identifyRows, maxAgeMs: limits.identifyMaxAgeHours * HOUR_MS },
    onPruned,
  };
}

async function openControl(options: StoreOptions, seed: ControlSeed) {
  if (options.redis === undefined) {
    const memory = createMemoryControlStore(options.bounds);
    await memory.seedIfEmpty(seed);
    return { control: memory as ControlStore, working: memory.working, heard: [] as ControlChange[], stopHearing: () => undefined };
  }
  const { retention, bounds } = options;
  const control = await openRedisControlStore({
    url: options.redis,
    ...(options.redisPrefix !== undefined && { prefix: options.redisPrefix }),
    ...(options.onError && { onError: options.onError }),
    ...(options.importer && { importer: options.importer }),
    ...(retention && { versionsKept: retention.snapshotVersions, onPruned: (versions: number) => retention.onPruned('snapshotVersions', versions) }),
  });
  // Redis counts the versions it removes; the working copy's copies of them are not counted again.
  const copyBounds: WorkingCopyBounds | undefined = bounds && {
    ...bounds,
    onEvict(what) {
      if (what === 'traitUsers') bounds.onEvict(what);
    },
  };
  // Subscribed before the load: a change made meanwhile is heard, and applying it twice is harmless.
  const heard: ControlChange[] = [];
  const stopHearing = control.subscribe((change) => heard.push(change));
  try {
    await control.seedIfEmpty(seed);
    return { control, working: workingCopyFrom(await control.load(), copyBounds), heard, stopHearing };
  } catch (error) {
    await control.close();
    throw error;
  }
}

/**
 * Opens the control store (memory, or Redis with `redis`) seeded from the config if empty, this
 * instance's working copy of it, and the identify queue and analytics store (memory, or
 * Postgres with `postgres`). Whatever opened is closed again if a later one fails.
 */
export async function openStores(
  options: StoreOptions,
  /** What a store that is still empty is seeded with: the config's environments, keys and traits. */
  seed: ControlSeed,
  memory: { identifyQueue: IdentifyLog; analytics: EventLog },
): Promise<InstanceStores> {
  const { control, working, heard, stopHearing } = await openControl(options, seed);
  let events: { identifyQueue: IdentifyQueueStore; analytics: AnalyticsStore; close(): Promise<void> };
  try {
    events =
      options.postgres === undefined
        ? { identifyQueue: createMemoryIdentifyQueueStore(memory.identifyQueue), analytics: createMemoryAnalyticsStore(memory.analytics), close: async () => undefined }
        : await openPostgresEventStores({
            url: options.postgres,
            ...(options.onError && { onError: options.onError }),
            ...(options.importer && { importer: options.importer }),
            ...(options.retention && { retention: options.retention }),
          });
  } catch (error) {
    await control.close();
    throw error;
  }
  let closed: Promise<void> | undefined;
  /** The one listener's unsubscribe, once `listen` was called. */
  let stopListening: (() => void) | undefined;
  return {
    control,
    working,
    identifyQueue: events.identifyQueue,
    analytics: events.analytics,
    listen(listener) {
      if (stopListening) throw new Error('openStores: listen() takes one listener, once');
      // Synchronous from here to the subscribe: no change can arrive in between.
      stopHearing();
      for (const change of heard.splice(0)) listener(change);
      stopListening = control.subscribe(listener);
    },
    close() {
      stopListening?.();
      closed ??= Promise.all([control.close(), events.close()]).then(() => undefined);
      return closed;
    },
  };
}
