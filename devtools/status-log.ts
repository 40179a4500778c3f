import type { ClientStatus, FlagplaneError } from '../src/index';

/** How many errors the panel keeps. */
const KEPT_ERRORS = 10;

/** What the panel remembers of the client's status over time (the client keeps only the last). */
export interface StatusLog {
  readonly status: ClientStatus | null;
  /** When the snapshot's version or source last changed (ms since the epoch), or `null` before any change was seen. */
  readonly snapshotAt: number | null;
  /** When a fetch last succeeded after a failure (the status's error cleared), or `null`. */
  readonly recoveredAt: number | null;
  /** The errors `getStatus().error` held, newest first, each when it was seen. */
  readonly errors: ReadonlyArray<{ error: FlagplaneError; at: number }>;
}

export const emptyLog = (): StatusLog => ({ status: null, snapshotAt: null, recoveredAt: null, errors: [] });

/** The log after `status` was seen at `at`; the same object when nothing it keeps changed. */
export function recordStatus(log: StatusLog, status: ClientStatus, at: number): StatusLog {
  const previous = log.status;
  if (previous === status) return log;
  const snapshotChanged = previous !== null && (previous.version !== status.version || previous.source !== status.source);
  const newError = status.error !== null && status.error !== previous?.error;
  return {
    status,
    snapshotAt: snapshotChanged ? at : log.snapshotAt,
    recoveredAt: previous?.error && !status.error ? at : log.recoveredAt,
    errors: newError ? [{ error: status.error!, at }, ...log.errors].slice(0, KEPT_ERRORS) : log.errors,
  };
}
