import { brotliCompress, constants, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { ContentCoding } from './content-coding';

/** Compresses one body; the server's own runs on libuv's thread pool, off the event loop. */
export type Compressor = (coding: ContentCoding, body: Buffer) => Promise<Buffer>;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Brotli quality 4 and gzip level 6. A publish's refetches wait for its first compression: on a
 * 10,000-flag snapshot (12 MiB) quality 4 takes about 60 ms where 5 takes 100 and 11 takes
 * 18 s, for 3 % and 27 % more bytes (docs/performance.md, Compression).
 */
export const BROTLI_QUALITY = 4;
export const GZIP_LEVEL = 6;

/** node:zlib's asynchronous brotli and gzip. */
export const zlibCompressor: Compressor = (coding, body) =>
  coding === 'br'
    ? brotli(body, {
        params: {
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : gzipAsync(body, { level: GZIP_LEVEL });

/** Which encoded body: a slot (one resource as one audience sees it), the version of its content, a coding. */
export interface EncodedBodyKey {
  /** For example `snapshot client production`: one per environment and key kind. */
  slot: string;
  /** Identifies the content of the slot: the same version is the same body. */
  version: number | string;
  coding: ContentCoding;
}

/** What the cache holds, for the tests and `npm run bench:compress`. */
export interface CompressionStats {
  /** Encoded bodies held, and their bytes in all. */
  entries: number;
  bytes: number;
  /** Compressions started since the cache was made. */
  compressions: number;
}

/** Encoded bodies, compressed once per slot, version and coding. */
export interface CompressionCache {
  /** Bytes of encoded bodies kept at most; a body longer than this is never compressed. */
  readonly maxBytes: number;
  /**
   * `body` (the slot's body at `version`) in `coding`. Compressed on the first request only;
   * requests arriving while it compresses share that compression.
   */
  encode(key: EncodedBodyKey, body: Buffer): Promise<Buffer>;
  stats(): CompressionStats;
}

type Entry = { version: number | string; pending: Promise<Buffer>; body?: Buffer };

/**
 * A bounded cache of encoded bodies. Each slot and coding holds one version: a body of a newer
 * version (a publish) replaces it. Past `maxBytes` in all, the least recently served go first;
 * compressions in flight are not counted until they finish.
 */
export function createCompressionCache(maxBytes: number, compress: Compressor = zlibCompressor): CompressionCache {
  // Map order is recency: a hit moves its entry to the end, eviction takes from the front.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let compressions = 0;
  const drop = (name: string) => {
    const entry = entries.get(name);
    if (entry?.body) bytes -= entry.body.length;
    entries.delete(name);
  };
  const evictBeyond = (kept: string) => {
    for (const name of entries.keys()) {
      if (bytes <= maxBytes) return;
      if (name !== kept && entries.get(name)!.body) drop(name);
    }
  };
  const start = (name: string, { version, coding }: EncodedBodyKey, body: Buffer): Promise<Buffer> => {
    compressions += 1;
    const entry: Entry = { version, pending: compress(coding, body) };
    drop(name);
    entries.set(name, entry);
    entry.pending.then(
      (encoded) => {
        if (entries.get(name) !== entry) return;
        entry.body = encoded;
        bytes += encoded.length;
        evictBeyond(name);
      },
      () => {
        if (entries.get(name) === entry) entries.delete(name);
      },
    );
    return entry.pending;
  };
  return {
    maxBytes,
    encode(key, body) {
      const name = `${key.coding} ${key.slot}`;
      const entry = entries.get(name);
      if (entry?.version !== key.version) return start(name, key, body);
      entries.delete(name);
      entries.set(name, entry);
      return entry.pending;
    },
    stats: () => ({ entries: [...entries.values()].filter((entry) => entry.body).length, bytes, compressions }),
  };
}
