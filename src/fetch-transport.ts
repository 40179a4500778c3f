import type { HttpRequest, HttpResult, HttpTransport } from './http-types';

/** An {@link HttpTransport} on the platform's global `fetch`, resolved at call time. */
export const fetchTransport: HttpTransport = async (request: HttpRequest): Promise<HttpResult> => {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      keepalive: request.keepalive,
      // We do our own ETag revalidation; the browser cache would turn our 304s into 200s.
      cache: 'no-store',
    });
    const body = response.status === 304 ? '' : await response.text();
    return { kind: 'response', status: response.status, header: (name) => response.headers.get(name), body };
  } catch (cause) {
    if (request.signal.aborted) return { kind: 'aborted' };
    return { kind: 'network-error', cause };
  }
};
