/**
 * What the admin change feed (GET /admin/v1/changes) tells an operator's console, and how each
 * change is framed as a Server-Sent Event. Every change names what to re-read, never the data.
 */

/** A change an operator can see, as the feed sends it (`event:` is its `kind`). */
export type AdminChange =
  | { kind: 'published'; environmentId: string; version: number }
  | { kind: 'key-added'; environmentId: string; key: string }
  /** `environmentId` is null when this instance does not know the key (revoked elsewhere before it was heard of). */
  | { kind: 'key-revoked'; environmentId: string | null; key: string }
  | { kind: 'traits-set'; environmentId: string; userId: string }
  | { kind: 'resync'; environmentId: string }
  /** The environment's stream connections on this instance, when their count changed. */
  | { kind: 'streams'; environmentId: string; streams: number }
  /** Events this instance accepted for the environment since the last such change. */
  | { kind: 'events'; environmentId: string; identify: number; analytics: number; diagnostics: number };

/** Which store an accepted event went to (event-routing.ts). */
export type ReceivedKind = 'identify' | 'analytics' | 'diagnostics';

/** The first event of every feed: it is open, and how often a silent feed still sends a comment. */
export interface FeedReady {
  heartbeatMs: number;
}

/** One Server-Sent Event: `event:` then one `data:` line of JSON (JSON.stringify never emits a newline). */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: ignored by every SSE reader, it keeps proxies from closing an idle response. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';
