import { randomBytes } from 'node:crypto';
import type { KeyKind } from '../stores/records';

/** `svc_sdk_<kind>_<API_KEY>` with an HTTP-token-safe API key (protocol.md §1). */
export const SDK_KEY_PATTERN = /^svc_sdk_(server|client)_[A-Za-z0-9_-]{8,128}$/;

/** The kind a well-formed key announces by its prefix, or `undefined` for a malformed key. */
export function kindOfKey(key: string): KeyKind | undefined {
  const match = SDK_KEY_PATTERN.exec(key);
  return match ? (match[1] as KeyKind) : undefined;
}

export function generateKey(kind: KeyKind): string {
  return `svc_sdk_${kind}_${randomBytes(18).toString('base64url')}`;
}

export function generateAdminToken(): string {
  return `admin_${randomBytes(24).toString('base64url')}`;
}
