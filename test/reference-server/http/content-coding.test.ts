import { describe, expect, it } from 'vitest';
import { chooseCoding, MIN_COMPRESSED_BYTES, parseAcceptEncoding } from '../../../reference-server/http/content-coding';

const SIZES = { minBytes: MIN_COMPRESSED_BYTES, maxBytes: 1_000_000 };
const BIG = 50_000;

describe('parseAcceptEncoding', () => {
  it('reads names and q-values case-insensitively, x-gzip as gzip, and skips entries with a malformed weight', () => {
    expect([...parseAcceptEncoding('GZIP;Q=0.5, br ; q = 0.8, x-gzip;q=0.7, deflate;q=2, zstd;q=abc, , identity;q=0')]).toEqual([
      ['gzip', 0.7],
      ['br', 0.8],
      ['identity', 0],
    ]);
  });

  it('gives an entry without a weight 1, and keeps the highest weight of a coding named twice', () => {
    expect(Object.fromEntries(parseAcceptEncoding('gzip;q=0, gzip, *;q=0.1, br;level=3'))).toEqual({ gzip: 1, '*': 0.1, br: 1 });
  });
});

describe('chooseCoding', () => {
  it.each([
    ['no header', undefined, 'identity'],
    ['an empty header (no coding wanted)', '', 'identity'],
    ['what browsers send', 'gzip, deflate, br, zstd', 'br'],
    ['what Node’s fetch sends over http', 'gzip, deflate', 'gzip'],
    ['br preferred when weights are equal', 'gzip;q=0.5, br;q=0.5', 'br'],
    ['the higher weight over the preference', 'br;q=0.4, gzip;q=0.9', 'gzip'],
    ['identity asked for above the codings', 'identity, gzip;q=0.5', 'identity'],
    ['a coding listed beats an identity left implicit', 'gzip;q=0.1', 'gzip'],
    ['* covering every coding', '*', 'br'],
    ['*;q=0 leaving only the coding named', 'gzip, *;q=0', 'gzip'],
    ['a refused coding', 'br;q=0, gzip', 'gzip'],
    ['only codings the server lacks', 'deflate, zstd', 'identity'],
    ['nothing acceptable at all: the header is disregarded', 'identity;q=0, deflate', 'identity'],
    ['*;q=0 alone: disregarded too', '*;q=0', 'identity'],
  ])('%s → %s', (_name, header, coding) => {
    expect(chooseCoding(header, BIG, SIZES)).toBe(coding);
  });

  it('sends a body under 1 KiB as it is while identity is acceptable, and compresses it when identity is refused', () => {
    expect(chooseCoding('br, gzip', MIN_COMPRESSED_BYTES - 1, SIZES)).toBe('identity');
    expect(chooseCoding('br, gzip', MIN_COMPRESSED_BYTES, SIZES)).toBe('br');
    expect(chooseCoding('gzip, identity;q=0', 10, SIZES)).toBe('gzip');
    expect(chooseCoding('gzip, *;q=0', 10, SIZES)).toBe('gzip');
  });

  it('sends a body longer than the compressed cache as it is, whatever the header says', () => {
    expect(chooseCoding('br', SIZES.maxBytes, SIZES)).toBe('br');
    expect(chooseCoding('br', SIZES.maxBytes + 1, SIZES)).toBe('identity');
    expect(chooseCoding('br, identity;q=0', SIZES.maxBytes + 1, SIZES)).toBe('identity');
  });
});
