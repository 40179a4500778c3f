import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { RouteError } from './responses';

const gunzipAsync = promisify(gunzip);

/**
 * A request body as sent, decoded per its `Content-Encoding`: none (or `identity`) as it is,
 * `gzip` decompressed on the thread pool, never to more than `limit` bytes — a small body that
 * inflates past the limit (a zip bomb) is a 413 as soon as the output passes it, so it costs at
 * most `limit` bytes of memory. A body that is not gzip is a 400; any other coding a 415.
 */
export async function decodeBody(headers: IncomingHttpHeaders, body: Buffer, limit: number): Promise<Buffer> {
  const coding = headers['content-encoding']?.trim().toLowerCase();
  if (coding === undefined || coding === '' || coding === 'identity') return body;
  if (coding !== 'gzip' && coding !== 'x-gzip') {
    throw new RouteError(415, 'unsupported_media_type', `Content-Encoding ${JSON.stringify(coding)} is not accepted: send gzip, or no encoding`);
  }
  try {
    return await gunzipAsync(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new RouteError(413, 'payload_too_large', `the body exceeds the limit of ${limit} bytes once decompressed`);
    }
    throw new RouteError(400, 'invalid_request', `the body is not valid gzip: ${(error as Error).message}`);
  }
}
