import type { JsonValue } from '../src/index';
import { isRecord } from './guards';

/** The `sessionStorage` key of the overrides of one environment (one per tab, gone with it). */
export const overridesKey = (environmentId: string): string => `flagplane-devtools:overrides:${environmentId}`;

/** The overrides kept under `key`; `{}` when there are none, or what is there is not an object of overrides. */
export function loadOverrides(storage: Pick<Storage, 'getItem'> | undefined, key: string): Record<string, JsonValue> {
  try {
    const kept: unknown = JSON.parse(storage?.getItem(key) ?? '{}');
    return isRecord(kept) ? (kept as Record<string, JsonValue>) : {};
  } catch {
    // Unreadable (blocked storage, a hand-edited value): start without overrides.
    return {};
  }
}

/** Keeps `overrides` under `key`, or removes the key when there are none. A storage that refuses is left as it is. */
export function saveOverrides(storage: Pick<Storage, 'setItem' | 'removeItem'> | undefined, key: string, overrides: Record<string, JsonValue>): void {
  try {
    if (Object.keys(overrides).length === 0) storage?.removeItem(key);
    else storage?.setItem(key, JSON.stringify(overrides));
  } catch {
    // Full or blocked: the overrides still apply to this page, they just will not survive a reload.
  }
}

/** The tab's `sessionStorage`, or `undefined` where reading it throws (blocked storage, sandboxed frames). */
export function sessionStore(): Storage | undefined {
  try {
    return sessionStorage;
  } catch {
    return undefined;
  }
}
