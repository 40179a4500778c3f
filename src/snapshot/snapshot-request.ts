import type { RouteRequest } from '../http/http-client';

export const SNAPSHOT_ROUTE = 'GET /sdk/v1/snapshot';

/**
 * The snapshot request of protocol.md §3 (the HTTP client adds the bearer key): `If-None-Match`, and
 * the minimum version in a header, so that every snapshot request has one URL (protocol.md §3).
 */
export const snapshotRequest = (etag: string | null, minVersion: number | null): RouteRequest => ({
  headers: {
    ...(etag && { 'if-none-match': etag }),
    ...(minVersion !== null && { 'flagplane-min-version': `${minVersion}` }),
  },
});
