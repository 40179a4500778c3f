import type { AdminChange, ReceivedKind } from './admin-change-kinds';

/**
 * What SDKs do, coalesced for the change feed: stream counts and accepted events change with
 * every visitor, so the feed reports them at most once per tick — what changed since the last
 * tick, nothing when nothing did.
 */
export interface ActivityTracker {
  /** Counts events accepted for an environment until the next `drain`. */
  received(environmentId: string, kind: ReceivedKind, count: number): void;
  /** The stream counts that changed and the events counted since the last drain (or `reset`). */
  drain(): AdminChange[];
  /** Forgets what was counted and takes the current stream counts as the base. */
  reset(): void;
}

export interface ActivitySources {
  environmentIds(): readonly string[];
  /** Open stream connections of the environment on this instance. */
  streams(environmentId: string): number;
}

export function createActivityTracker({ environmentIds, streams }: ActivitySources): ActivityTracker {
  const lastStreams = new Map<string, number>();
  const counted = new Map<string, Record<ReceivedKind, number>>();
  const tracker: ActivityTracker = {
    received(environmentId, kind, count) {
      if (count === 0) return;
      const counts = counted.get(environmentId) ?? { identify: 0, analytics: 0, diagnostics: 0 };
      counts[kind] += count;
      counted.set(environmentId, counts);
    },
    drain() {
      const changes: AdminChange[] = [];
      for (const environmentId of environmentIds()) {
        const now = streams(environmentId);
        if (lastStreams.get(environmentId) !== now) changes.push({ kind: 'streams', environmentId, streams: now });
        lastStreams.set(environmentId, now);
      }
      for (const [environmentId, counts] of counted) changes.push({ kind: 'events', environmentId, ...counts });
      counted.clear();
      return changes;
    },
    reset() {
      counted.clear();
      lastStreams.clear();
      tracker.drain();
    },
  };
  return tracker;
}
