import type { JsonValue } from '../../src/snapshot/snapshot-types';

/** `production` evaluations go to analytics; `staging` ones never do (protocol.md §4). */
export type EnvironmentKind = 'production' | 'staging';

/** `client` keys see only `clientSide: true` flags (protocol.md §1). */
export type KeyKind = 'server' | 'client';

/** A user's trait overlay as the server stores it (protocol.md §4). */
export type StoredTraits = { [name: string]: JsonValue };

export interface KeyRecord {
  readonly key: string;
  readonly kind: KeyKind;
  readonly environmentId: string;
  revoked: boolean;
}

/** One row of the identify queue, as a relational table would hold it. */
export interface IdentifyRow {
  readonly id: number;
  readonly environmentId: string;
  readonly userId: string;
  readonly traits: StoredTraits;
  readonly receivedAt: string;
}

/** An identify row once a consumer claimed it. */
export interface ClaimedRow extends IdentifyRow {
  readonly claimedAt: string;
}

/** A diagnostic event as received, plus where and when it arrived. */
export interface StoredEvent {
  readonly type: string;
  readonly environmentId: string;
  readonly receivedAt: string;
  readonly [member: string]: unknown;
}

/** What the limits evicted or refused since the start, shown by GET /admin/v1/diagnostics. */
export interface Evictions {
  events: number;
  identifyRows: number;
  snapshotVersions: number;
  traitUsers: number;
  streamsRefused: number;
  requestsLimited: number;
}
