import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Schedule } from './readiness';

/** One live instance, as `GET /admin/v1/instances` lists it. */
export interface InstanceEntry {
  id: string;
  /** ISO time the instance started. */
  startedAt: string;
  /** ISO time of its latest heartbeat (Redis's clock), or now for the instance that answered in memory. */
  lastSeen: string;
  /** Its open stream connections at its latest heartbeat. */
  streams: number;
}

/** What an instance tells the registry about itself. */
export interface ThisInstance {
  readonly id: string;
  readonly startedAt: Date;
  /** Its open stream connections now. */
  streams(): number;
}

/**
 * The live instances of a deployment. In memory an instance knows only itself; on Redis each
 * instance registers itself, beats every `ttlMs / 3`, and an entry not refreshed within `ttlMs`
 * is no longer listed (an instance that was killed); close() removes this one's entry at once.
 */
export interface InstanceRegistry {
  readonly engine: 'memory' | 'redis';
  /** Every live instance, this one included, oldest first. */
  list(): Promise<InstanceEntry[]>;
  /** Stops the heartbeat and removes this instance's entry; calling it again returns the same promise. */
  close(): Promise<void>;
}

/** `${hostname}-${pid}-${6 hex digits}`: readable in a listing, unique across restarts of one pid. */
export function defaultInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** The default time after which an instance that stopped beating is no longer listed. */
export const DEFAULT_INSTANCE_TTL_MS = 15_000;

/** The interval of the heartbeat for a given TTL: three beats may be missed before an entry lapses. */
export const beatInterval = (ttlMs: number) => Math.max(10, Math.floor(ttlMs / 3));

export function createMemoryInstanceRegistry(self: ThisInstance, now: () => Date = () => new Date()): InstanceRegistry {
  return {
    engine: 'memory',
    list: () => Promise.resolve([{ id: self.id, startedAt: self.startedAt.toISOString(), lastSeen: now().toISOString(), streams: self.streams() }]),
    close: () => Promise.resolve(),
  };
}

/**
 * Runs `beat` every `intervalMs`, the next one scheduled when the previous has settled (they
 * never overlap). stop() cancels the timer and resolves once a beat in flight has settled, so
 * nothing a beat writes can land after what the caller does next (the deregistration).
 */
export function startBeats(beat: () => Promise<void>, intervalMs: number, schedule: Schedule, onError: (error: unknown) => void) {
  let cancel: (() => void) | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let stopped = false;
  const next = () => {
    cancel = schedule(() => {
      cancel = undefined;
      inFlight = beat()
        .catch(onError)
        .then(() => {
          if (!stopped) next();
        });
    }, intervalMs);
  };
  next();
  return {
    stop(): Promise<void> {
      stopped = true;
      cancel?.();
      cancel = undefined;
      return inFlight;
    },
  };
}
