/**
 * What protocol.md requires, written down here rather than imported from the reference server:
 * a conformance run that read the implementation's own constants would agree with its bugs.
 */
export const SDK_ROUTES = {
  snapshot: '/sdk/v1/snapshot',
  events: '/sdk/v1/events',
  identity: '/sdk/v1/identity',
  stream: '/sdk/v1/stream',
} as const;

export const STREAM_SUBPROTOCOL = 'flagplane.v1';
export const KEY_SUBPROTOCOL_PREFIX = 'flagplane.key.';
export const MIN_VERSION_HEADER = 'Flagplane-Min-Version';

/** §6.4 */
export const CLOSE_CODE = { protocolError: 4400, badKey: 4401, revoked: 4403 } as const;

/** §6.4: a revoked key's open streams close within one second. */
export const REVOKE_CLOSE_WITHIN_MS = 1000;

/** §3: the ETag of the snapshot with `version`. */
export const snapshotEtag = (version: number): string => `"snapshot-${version}"`;

/** §10: the preflight's answer, header by header. */
export const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, If-None-Match, Flagplane-Min-Version',
  'access-control-max-age': '86400',
} as const;

/** A well-formed server key (§1) that no data plane has issued: what the 401 checks send. */
export const UNKNOWN_KEY = 'svc_sdk_server_flagplane-check-unknown-0000';

/** §6.1 and §6.2: `{ws_url}/sdk/v1/stream`, with `http:` → `ws:`; the whole stream URL is taken as it is. */
export function streamEndpoint(streamUrl: string): string {
  const url = streamUrl.replace(/^http/, 'ws').replace(/\/+$/, '');
  return url.endsWith(SDK_ROUTES.stream) ? url : url + SDK_ROUTES.stream;
}
