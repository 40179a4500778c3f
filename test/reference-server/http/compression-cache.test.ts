import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createCompressionCache, zlibCompressor, type Compressor } from '../../../reference-server/http/compression';
import type { ContentCoding } from '../../../reference-server/http/content-coding';

/** A compressor that records its calls and finishes each when the test says so. */
function heldCompressor() {
  const calls: Array<{ coding: ContentCoding; body: string; finish: (encoded?: Buffer) => void; fail: (error: Error) => void }> = [];
  const compress: Compressor = (coding, body) =>
    new Promise((resolve, reject) => {
      calls.push({ coding, body: body.toString(), finish: (encoded) => resolve(encoded ?? Buffer.from(`${coding}(${body})`)), fail: reject });
    });
  return { compress, calls };
}

/** A compressor answering at once with `<coding>(<body>)`, counting its calls. */
function countingCompressor() {
  const calls: string[] = [];
  const compress: Compressor = async (coding, body) => {
    calls.push(`${coding} ${body}`);
    return Buffer.from(`${coding}(${body})`);
  };
  return { compress, calls };
}

const body = (text: string) => Buffer.from(text);

describe('the compression cache', () => {
  it('compresses once per slot, version and coding, however many requests ask', async () => {
    const { compress, calls } = countingCompressor();
    const cache = createCompressionCache(1 << 20, compress);
    for (let i = 0; i < 5; i++) {
      expect((await cache.encode({ slot: 'snapshot client prod', version: 1, coding: 'br' }, body('v1-client'))).toString()).toBe('br(v1-client)');
      expect((await cache.encode({ slot: 'snapshot server prod', version: 1, coding: 'br' }, body('v1-server'))).toString()).toBe('br(v1-server)');
      expect((await cache.encode({ slot: 'snapshot client prod', version: 1, coding: 'gzip' }, body('v1-client'))).toString()).toBe('gzip(v1-client)');
    }
    expect(calls).toEqual(['br v1-client', 'br v1-server', 'gzip v1-client']);
    expect(cache.stats()).toEqual({ entries: 3, bytes: 'br(v1-client)'.length + 'br(v1-server)'.length + 'gzip(v1-client)'.length, compressions: 3 });
  });

  it('lets requests arriving during a compression share it', async () => {
    const { compress, calls } = heldCompressor();
    const cache = createCompressionCache(1 << 20, compress);
    const key = { slot: 'snapshot client prod', version: 7, coding: 'gzip' } as const;
    const waiting = Array.from({ length: 10 }, () => cache.encode(key, body('seven')));
    expect(calls).toHaveLength(1);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
    calls[0]!.finish();
    expect((await Promise.all(waiting)).map(String)).toEqual(Array(10).fill('gzip(seven)'));
    expect(cache.stats()).toEqual({ entries: 1, bytes: 'gzip(seven)'.length, compressions: 1 });
  });

  it('replaces a slot’s version with the newer one a publish brings, freeing its bytes', async () => {
    const { compress, calls } = countingCompressor();
    const cache = createCompressionCache(1 << 20, compress);
    await cache.encode({ slot: 's', version: 1, coding: 'br' }, body('one'));
    expect((await cache.encode({ slot: 's', version: 2, coding: 'br' }, body('two!'))).toString()).toBe('br(two!)');
    expect(cache.stats()).toEqual({ entries: 1, bytes: 'br(two!)'.length, compressions: 2 });
    await cache.encode({ slot: 's', version: 2, coding: 'br' }, body('two!'));
    expect(calls).toEqual(['br one', 'br two!']);
  });

  it('keeps at most maxBytes, dropping the least recently served first', async () => {
    const { compress, calls } = countingCompressor();
    // Each encoded body is 10 bytes: `br(aaaaa)`-shaped, `br(` + 6 + `)`.
    const cache = createCompressionCache(30, compress);
    const get = (slot: string) => cache.encode({ slot, version: 1, coding: 'br' }, body(slot.repeat(6)));
    await get('a');
    await get('b');
    await get('c');
    expect(cache.stats()).toEqual({ entries: 3, bytes: 30, compressions: 3 });
    await get('a'); // served again: now the most recent
    await get('d'); // 40 bytes: b, the least recently served, goes
    expect(cache.stats()).toEqual({ entries: 3, bytes: 30, compressions: 4 });
    await get('a');
    await get('c');
    await get('d');
    expect(calls).toEqual(['br aaaaaa', 'br bbbbbb', 'br cccccc', 'br dddddd']);
    await get('b');
    expect(calls.at(-1)).toBe('br bbbbbb');
    expect(cache.stats().bytes).toBeLessThanOrEqual(30);
  });

  it('forgets a failed compression, so the next request tries again', async () => {
    const { compress, calls } = heldCompressor();
    const cache = createCompressionCache(1 << 20, compress);
    const key = { slot: 's', version: 1, coding: 'br' } as const;
    const first = cache.encode(key, body('x'));
    calls[0]!.fail(new Error('zlib failed'));
    await expect(first).rejects.toThrow('zlib failed');
    const second = cache.encode(key, body('x'));
    expect(calls).toHaveLength(2);
    calls[1]!.finish();
    expect((await second).toString()).toBe('br(x)');
  });

  it('does not store a compression that a newer version overtook', async () => {
    const { compress, calls } = heldCompressor();
    const cache = createCompressionCache(1 << 20, compress);
    const old = cache.encode({ slot: 's', version: 1, coding: 'br' }, body('old'));
    const fresh = cache.encode({ slot: 's', version: 2, coding: 'br' }, body('new'));
    calls[1]!.finish();
    calls[0]!.finish();
    expect((await old).toString()).toBe('br(old)');
    expect((await fresh).toString()).toBe('br(new)');
    expect(cache.stats()).toEqual({ entries: 1, bytes: 'br(new)'.length, compressions: 2 });
  });
});

describe('zlibCompressor', () => {
  it('produces br and gzip that decode to the same bytes', async () => {
    const json = Buffer.from(JSON.stringify({ flags: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`flag-${i}`, { on: i % 2 === 0, salt: `s${i}` }])) }));
    const br = await zlibCompressor('br', json);
    const gzip = await zlibCompressor('gzip', json);
    expect(brotliDecompressSync(br).equals(json)).toBe(true);
    expect(gunzipSync(gzip).equals(json)).toBe(true);
    expect(br.length).toBeLessThan(json.length / 5);
    expect(gzip.length).toBeLessThan(json.length / 5);
  });
});
