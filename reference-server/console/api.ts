/**
 * The admin API as the console uses it: one typed function per route, every failure an
 * {@link AdminError} carrying the server's `code`, `message` and `path`.
 */
import type { Flag, FlagSnapshot, JsonValue } from '../../src/index';

export type EnvironmentKind = 'production' | 'staging';
export type KeyKind = 'client' | 'server';

export interface EnvironmentInfo {
  id: string;
  kind: EnvironmentKind;
  /** The current version. */
  version: number;
  /** Published versions kept, ascending. */
  versions: number[];
  /** Open stream connections subscribed to the environment. */
  streams: number;
  /** The current snapshot, with every flag (server-side ones included). */
  snapshot: FlagSnapshot;
}

export interface KeyInfo {
  key: string;
  kind: KeyKind;
  environmentId: string;
  revoked: boolean;
}

/** A diagnostic or analytics event as the server stored it. */
export interface StoredEvent {
  type: string;
  environmentId: string;
  receivedAt: string;
  [member: string]: unknown;
}

export interface IdentifyRow {
  id: number;
  environmentId: string;
  userId: string;
  traits: Record<string, JsonValue>;
  receivedAt: string;
}

/** What a flag change answers: the version it published. */
export interface FlagChange {
  environmentId: string;
  version: number;
  key: string;
  /** The flag as the server stored it; absent after a DELETE. */
  flag?: Flag;
  /** Set by the console on a DELETE's answer, so that a missing `flag` alone never reads as a removal. */
  removed?: true;
}

/** A failed admin call: the server's error, or `network` when no answer came. */
export class AdminError extends Error {
  override readonly name = 'AdminError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The member at fault, relative to what was sent (a flag: `rules[0].conditions[0].op`). */
    readonly path?: string,
  ) {
    super(message);
  }
}

/** Whether `error` is the abort we caused ourselves (unmount, a newer poll). */
export const isAbort = (error: unknown): boolean => error instanceof DOMException && error.name === 'AbortError';

/** The server's error shape as an AdminError; the status line when the body is not that shape. */
export function errorFromBody(status: number, text: string): AdminError {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; path?: unknown } };
    if (error && typeof error.message === 'string') {
      return new AdminError(status, String(error.code ?? 'error'), error.message, typeof error.path === 'string' ? error.path : undefined);
    }
  } catch {
    // Not our error shape (a proxy's page, say): fall through to the status line.
  }
  return new AdminError(status, 'http', `the server answered ${status}${text ? `: ${text.slice(0, 200)}` : ''}`);
}

export type AdminApi = ReturnType<typeof createAdminApi>;

const segment = encodeURIComponent;

/** The admin routes under `token`, on the page's own origin. */
export function createAdminApi(token: string, origin = location.origin) {
  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${origin}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        cache: 'no-store',
      });
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new AdminError(0, 'network', `${method} ${path}: the server did not answer (${(error as Error).message})`);
    }
    const text = await response.text();
    if (!response.ok) throw errorFromBody(response.status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  const flagPath = (environmentId: string, key: string) => `/environments/${segment(environmentId)}/flags/${segment(key)}`;

  return {
    origin,
    token,
    environments: (signal?: AbortSignal) =>
      call<{ environments: EnvironmentInfo[] }>('GET', '/environments', undefined, signal).then((r) => r.environments),
    /** One environment, as `environments` lists it. */
    environment: (environmentId: string, signal?: AbortSignal) => call<EnvironmentInfo>('GET', `/environments/${segment(environmentId)}`, undefined, signal),
    keys: (signal?: AbortSignal) => call<{ keys: KeyInfo[] }>('GET', '/keys', undefined, signal).then((r) => r.keys),
    createKey: (environmentId: string, kind: KeyKind) =>
      call<{ key: string; kind: KeyKind; environmentId: string }>('POST', `/environments/${segment(environmentId)}/keys`, { kind }),
    revokeKey: (key: string) => call<void>('DELETE', `/keys/${segment(key)}`),
    /** Creates or replaces a whole flag. */
    putFlag: (environmentId: string, key: string, flag: unknown) => call<FlagChange>('PUT', flagPath(environmentId, key), flag),
    /** Merges top-level members into an existing flag. */
    patchFlag: (environmentId: string, key: string, members: Partial<Record<keyof Flag, unknown>>) =>
      call<FlagChange>('PATCH', flagPath(environmentId, key), members),
    deleteFlag: (environmentId: string, key: string) =>
      call<FlagChange>('DELETE', flagPath(environmentId, key)).then((change): FlagChange => ({ ...change, removed: true })),
    diagnostics: (limit: number, signal?: AbortSignal) =>
      call<{ events: StoredEvent[] }>('GET', `/diagnostics?limit=${limit}`, undefined, signal).then((r) => r.events),
    analytics: (limit: number, signal?: AbortSignal) =>
      call<{ events: StoredEvent[] }>('GET', `/analytics?limit=${limit}`, undefined, signal).then((r) => r.events),
    identifyQueue: (environmentId: string, limit: number, signal?: AbortSignal) =>
      call<{ rows: IdentifyRow[] }>('GET', `/environments/${segment(environmentId)}/identify-queue?limit=${limit}`, undefined, signal).then((r) => r.rows),
  };
}
