/** One HTTP request the client asks its transport to make. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborted when the client times the request out, supersedes it, or closes. */
  signal: AbortSignal;
  /** Ask the platform to finish the request after the page unloads. */
  keepalive?: boolean;
}

/** What a transport answers; it never throws and never rejects. */
export type HttpResult =
  | {
      kind: 'response';
      status: number;
      /** Case-insensitive header lookup. */
      header(name: string): string | null;
      body: string;
    }
  | { kind: 'network-error'; cause: unknown }
  /**
   * Ended by the client (timeout, a newer request, `close()`), or, with a `cause`, by the
   * framework the app runs in: what its fetch threw to end the request, such as Next.js's
   * dynamic-usage error while it prerenders. Neither is a network failure.
   */
  | { kind: 'aborted'; cause?: unknown };

/**
 * The HTTP transport adapter: one function. The default is built on the global
 * `fetch`; React Native, Electron or tests can pass their own.
 */
export type HttpTransport = (request: HttpRequest) => Promise<HttpResult>;
