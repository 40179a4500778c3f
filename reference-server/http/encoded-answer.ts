import type { IncomingHttpHeaders } from 'node:http';
import type { CompressionCache, EncodedBodyKey } from './compression';
import { chooseCoding, MIN_COMPRESSED_BYTES, type ChosenCoding } from './content-coding';
import type { HandlerResult } from './responses';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The coding `headers` get for `body`: compressed between 1 KiB and the cache's size. */
export function codingFor(cache: CompressionCache, headers: IncomingHttpHeaders, body: Buffer): ChosenCoding {
  return chooseCoding(headers['accept-encoding'], body.length, { minBytes: MIN_COMPRESSED_BYTES, maxBytes: cache.maxBytes });
}

/**
 * The ETag of a version's body in `coding`: the strong tag as it is, weakened for a compressed
 * body. Each coding is the same representation semantically, so one weak tag serves them all,
 * and `If-None-Match` (weak comparison) matches it whichever coding the client got it in.
 */
export function etagIn(etag: string, coding: ChosenCoding): string {
  return coding === 'identity' ? etag : `W/${etag}`;
}

/** A 200 whose `body` (the slot's at `version`) goes out in `coding`, compressed once per version. */
export async function encodedOk(
  cache: CompressionCache,
  key: Omit<EncodedBodyKey, 'coding'>,
  coding: ChosenCoding,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
): Promise<HandlerResult> {
  if (coding === 'identity') return { status: 200, headers, file: { contentType: JSON_TYPE, content: body } };
  const content = await cache.encode({ slot: key.slot, version: key.version, coding }, body);
  return { status: 200, headers: Object.assign({ 'Content-Encoding': coding }, headers), file: { contentType: JSON_TYPE, content } };
}

/**
 * A 200 with `value` as JSON, sent compressed per `Accept-Encoding`. `version` must change
 * whenever the JSON does: it is what the cache keys the compressed body on.
 */
export function encodedJson(cache: CompressionCache, headers: IncomingHttpHeaders, slot: string, version: string, value: unknown): Promise<HandlerResult> {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return encodedOk(cache, { slot, version }, codingFor(cache, headers, body), body, { Vary: 'Accept-Encoding' });
}
