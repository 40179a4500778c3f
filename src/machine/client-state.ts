import type { FlagplaneError } from '../shared/errors';
import type { FlagSnapshot } from '../snapshot/snapshot-types';
import type { Activity } from '../platform/activity';

/** Readiness: `failed` means `readyTimeout` passed without any snapshot; it still retries. */
export type Readiness = 'initializing' | 'ready' | 'failed';

/** How the client hears about changes. `stopped` after `close()`. */
export type ConnectionState = 'polling' | 'connecting' | 'streaming' | 'reconnecting' | 'stopped';

/** Where the snapshot being served came from. */
export type SnapshotSource = 'network' | 'cache' | 'bootstrap' | 'tab';

/** The public, immutable status of a client; a new object only when something changed. */
export interface ClientStatus {
  readonly status: Readiness;
  readonly connection: ConnectionState;
  readonly source: SnapshotSource | null;
  /** Version of the snapshot being served, or `null` before there is one. */
  readonly version: number | null;
  /** The last failure, cleared by the next successful fetch. */
  readonly error: FlagplaneError | null;
}

/** What `ready()` resolves to. It never rejects. */
export type ReadyResult =
  | { status: 'ready'; source: SnapshotSource }
  | { status: 'timeout'; source: null }
  /**
   * Before any snapshot, the framework the app runs in ended the fetch to end its render
   * (Next.js prerendering a page that reads flags): not a failure. Polling goes on.
   */
  | { status: 'interrupted'; source: null }
  | { status: 'closed'; source: null };

/** The whole state of the fetch machine. */
export interface MachineState {
  readonly status: ClientStatus;
  readonly snapshot: FlagSnapshot | null;
  readonly etag: string | null;
  /** Consecutive failed fetches; drives the backoff. */
  readonly failures: number;
  /** `held`: the server asked to wait (Retry-After); a stream notice then waits for the retry too. */
  readonly fetch: 'idle' | 'in-flight' | 'held';
  /** A version the stream announced that the client does not hold yet (`minVersion`). */
  readonly wanted: number | null;
  /** Fetches made since `wanted` was set whose answer was still older. */
  readonly catchUps: number;
  readonly activity: Activity;
}

/**
 * Bootstrap and cached snapshots arrive as `snapshot-received` events after this. It is
 * paused (`offline`: no request) until `start` brings the platform's activity.
 */
export function initialState(): MachineState {
  return {
    status: { status: 'initializing', connection: 'polling', source: null, version: null, error: null },
    snapshot: null,
    etag: null,
    failures: 0,
    fetch: 'idle',
    wanted: null,
    catchUps: 0,
    activity: 'offline',
  };
}
