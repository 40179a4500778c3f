import type { HttpTransport } from './http-types';

/** An {@link HttpTransport} on the platform's global `fetch`, resolved at call time. */
export const fetchTransport: HttpTransport = async (request) => {
  try {
    // `fetch` ignores the extra `url` member. `no-store`: we do our own ETag revalidation,
    // and the browser cache would turn our 304s into 200s.
    const response = await fetch(request.url, { ...request, cache: 'no-store' });
    const body = await response.text();
    return { kind: 'response', status: response.status, header: (name) => response.headers.get(name), body };
  } catch (cause) {
    return request.signal.aborted ? { kind: 'aborted' } : { kind: 'network-error', cause };
  }
};
