/** Stable error codes; `error.code` is one of these. */
export type FlagplaneErrorCode = 'config' | 'http' | 'network' | 'timeout' | 'schema' | 'storage' | 'stream' | 'listener' | 'events';

/** What a thrown value says: its `message`, else the value itself. */
export const messageOf = (cause: unknown) => (cause as Error)?.message ?? cause;

/** Base class of every error the SDK reports through `onError`. */
export class FlagplaneError extends Error {
  override name = 'FlagplaneError';

  constructor(
    readonly code: FlagplaneErrorCode,
    message: string,
    cause?: unknown,
  ) {
    super(message);
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}

/** Invalid options given to `createClient`, or a Svelte store with no client set — the only error the SDK throws. */
export class ConfigError extends FlagplaneError {
  override name = 'ConfigError';
  constructor(message: string) {
    super('config', message);
  }
}

/** The server answered with an unexpected status; `serverCode` is the body's `error.code`. */
export class HttpError extends FlagplaneError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly route: string,
    readonly serverCode?: string,
    detail?: string,
  ) {
    super('http', `${route} answered ${status}${detail ? `: ${detail}` : ''}`);
  }
}

/** The request never got an answer (DNS, refused connection, CORS, offline); `cause` says why. */
export class NetworkError extends FlagplaneError {
  override name = 'NetworkError';
  constructor(
    readonly route: string,
    cause: unknown,
  ) {
    super('network', `${route} failed: ${messageOf(cause)}`, cause);
  }
}

/** The request took longer than `requestTimeout`. */
export class TimeoutError extends FlagplaneError {
  override name = 'TimeoutError';
  constructor(
    readonly route: string,
    readonly timeoutMs: number,
  ) {
    super('timeout', `${route} timed out after ${timeoutMs} ms`);
  }
}

/** A snapshot that is not schema 1 (newer schema, or not a snapshot at all). */
export class SchemaError extends FlagplaneError {
  override name = 'SchemaError';
  constructor(message: string) {
    super('schema', message);
  }
}

/** The durable cache failed to read or write; the client carries on from memory. */
export class StorageError extends FlagplaneError {
  override name = 'StorageError';
  constructor(message: string, cause?: unknown) {
    super('storage', message, cause);
  }
}
