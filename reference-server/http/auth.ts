import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { RouteError } from './responses';
import { SDK_KEY_PATTERN } from './sdk-keys';
import type { KeyStore } from '../stores/key-store';
import type { KeyRecord } from '../stores/records';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer' } as const;

function unauthorized(message: string): RouteError {
  return new RouteError(401, 'unauthorized', message, undefined, CHALLENGE);
}

/** The token of `Authorization: Bearer <token>`, or `undefined` when absent or another scheme. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

export type KeyCheck = { ok: true; record: KeyRecord } | { ok: false; message: string };

/** Why a key cannot be used, or its record. Shared by HTTP and the stream. */
export function checkSdkKey(key: string | undefined, keys: KeyStore): KeyCheck {
  if (key === undefined) return { ok: false, message: 'an SDK key is required: Authorization: Bearer <sdkKey>' };
  if (!SDK_KEY_PATTERN.test(key)) return { ok: false, message: 'the SDK key is malformed' };
  const record = keys.get(key);
  if (!record) return { ok: false, message: 'unknown SDK key' };
  if (record.revoked) return { ok: false, message: 'the SDK key has been revoked' };
  return { ok: true, record };
}

/** The active key of the request; a missing, malformed, unknown or revoked key is a 401. */
export function requireSdkKey(headers: IncomingHttpHeaders, keys: KeyStore): KeyRecord {
  const check = checkSdkKey(bearerToken(headers), keys);
  if (!check.ok) throw unauthorized(check.message);
  return check.record;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function requireAdminToken(headers: IncomingHttpHeaders, adminToken: string): void {
  const token = bearerToken(headers);
  if (token === undefined) throw unauthorized('an admin token is required: Authorization: Bearer <adminToken>');
  if (!timingSafeEqual(digest(token), digest(adminToken))) throw unauthorized('wrong admin token');
}
