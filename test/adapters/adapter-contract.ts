import { afterEach, describe, expect, it } from 'vitest';
import type { StorageAdapter } from '../../src/storage/storage-types';

/** One adapter under test, on a fresh backing store. */
export interface AdapterFixture {
  adapter: StorageAdapter;
  /**
   * A new adapter instance on the same backing store, for durable adapters; the
   * durability case is skipped (and shown as skipped) without it.
   */
  reopen?(): Promise<StorageAdapter> | StorageAdapter;
  cleanup?(): Promise<void> | void;
}

const MB = 1024 * 1024;
const codeUnits = (text: string) => Array.from({ length: text.length }, (_, index) => text.charCodeAt(index).toString(16));

/** Keys an adapter must keep apart, including ones a naive file-name encoding would merge. */
export const ODD_KEYS = [
  'flagplane:snapshot:ab12',
  'a/b',
  'a%2Fb',
  'a\\b',
  '../x',
  '..',
  '.',
  '',
  'with spaces ',
  ' with spaces',
  'A',
  'a',
  'CON',
  'nul.txt',
  '*?<>|"',
  'ключ',
  '🔑',
  'x'.repeat(300),
  'x'.repeat(301),
  '\uD800',
  '\uDC00',
];

/** Values that must come back exactly, code unit for code unit. */
export const UNICODE_VALUES = [
  '🚀 emoji with a ZWJ family 👩‍👩‍👧 and a flag 🇫🇷',
  '中文、日本語、한국어',
  'é', // one code point
  'e\u0301', // e + combining acute: must not be normalised
  '\uFEFF leading BOM',
  '\uD800', // a lone high surrogate
  'a\uDC00b', // a lone low surrogate
  '\u0000 NUL and \r\n line ends',
  '',
];

/**
 * The shared storage adapter suite: every adapter runs the same cases. Works for
 * synchronous and asynchronous adapters alike (every result is awaited).
 */
export function describeStorageAdapter(name: string, makeAdapter: () => Promise<AdapterFixture>): void {
  describe(`${name}: the StorageAdapter contract`, () => {
    let fixtures: AdapterFixture[] = [];
    const make = async () => {
      const fixture = await makeAdapter();
      fixtures.push(fixture);
      return fixture;
    };
    afterEach(async () => {
      const done = fixtures;
      fixtures = [];
      for (const fixture of done) await fixture.cleanup?.();
    });

    it('get of a missing key is null', async () => {
      const { adapter } = await make();
      await expect(Promise.resolve(adapter.get('missing'))).resolves.toBeNull();
    });

    it('set then get returns the value', async () => {
      const { adapter } = await make();
      await adapter.set('k', 'v');
      expect(await adapter.get('k')).toBe('v');
    });

    it('set overwrites', async () => {
      const { adapter } = await make();
      await adapter.set('k', 'first, and longer than the second');
      await adapter.set('k', 'second');
      expect(await adapter.get('k')).toBe('second');
    });

    it('remove then get is null', async () => {
      const { adapter } = await make();
      await adapter.set('k', 'v');
      await adapter.remove('k');
      expect(await adapter.get('k')).toBeNull();
    });

    it('remove of a missing key is fine, and twice is fine', async () => {
      const { adapter } = await make();
      await adapter.remove('never-set');
      await adapter.set('k', 'v');
      await adapter.remove('k');
      await adapter.remove('k');
      expect(await adapter.get('k')).toBeNull();
    });

    it('keys are independent', async () => {
      const { adapter } = await make();
      await adapter.set('one', '1');
      await adapter.set('two', '2');
      await adapter.remove('one');
      expect(await adapter.get('one')).toBeNull();
      expect(await adapter.get('two')).toBe('2');
    });

    it('a 1 MB value round-trips', async () => {
      const { adapter } = await make();
      const value = JSON.stringify({ blob: 'x'.repeat(MB - 40), tail: 'é🚀' });
      await adapter.set('big', value);
      const back = await adapter.get('big');
      expect(back?.length).toBe(value.length);
      expect(back === value).toBe(true);
    });

    it('unicode values round-trip exactly (emoji, CJK, combining marks, lone surrogates, NUL, empty)', async () => {
      const { adapter } = await make();
      for (const [index, value] of UNICODE_VALUES.entries()) await adapter.set(`u${index}`, value);
      for (const [index, value] of UNICODE_VALUES.entries()) {
        const back = await adapter.get(`u${index}`);
        expect(back === null ? null : codeUnits(back), JSON.stringify(value)).toEqual(codeUnits(value));
      }
    });

    it('keys with odd characters round-trip and stay independent', async () => {
      const { adapter } = await make();
      for (const [index, key] of ODD_KEYS.entries()) await adapter.set(key, `value ${index}`);
      for (const [index, key] of ODD_KEYS.entries()) expect(await adapter.get(key), JSON.stringify(key)).toBe(`value ${index}`);
      await adapter.remove('a/b');
      await adapter.remove('\uD800');
      await adapter.remove('A');
      for (const [index, key] of ODD_KEYS.entries()) {
        const removed = key === 'a/b' || key === '\uD800' || key === 'A';
        expect(await adapter.get(key), JSON.stringify(key)).toBe(removed ? null : `value ${index}`);
      }
    });

    it('writes issued without awaiting land in call order, and a read sees the writes before it', async () => {
      const { adapter } = await make();
      const big = 'b'.repeat(2 * MB);
      const writes = [adapter.set('k', big), adapter.set('k', 'small'), adapter.set('k', 'last')];
      const read = adapter.get('k');
      const removed = adapter.remove('k');
      const afterRemove = adapter.get('k');
      const rewritten = adapter.set('k', 'again');
      await Promise.all([...writes, removed, rewritten]);
      expect(await read).toBe('last');
      expect(await afterRemove).toBeNull();
      expect(await adapter.get('k')).toBe('again');
    });

    it('values survive a fresh adapter instance on the same backing store', async (context) => {
      const fixture = await make();
      if (!fixture.reopen) return context.skip('not durable: no backing store outlives the instance');
      await fixture.adapter.set('flagplane:snapshot:ab12', '{"format":1}');
      await fixture.adapter.set('gone', 'soon');
      await fixture.adapter.remove('gone');
      const fresh = await fixture.reopen();
      expect(await fresh.get('flagplane:snapshot:ab12')).toBe('{"format":1}');
      expect(await fresh.get('gone')).toBeNull();
      await fresh.set('flagplane:snapshot:ab12', 'from the fresh instance');
      expect(await fixture.adapter.get('flagplane:snapshot:ab12')).toBe('from the fresh instance');
    });
  });
}
