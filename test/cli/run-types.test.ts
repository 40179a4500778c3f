import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTypes, typesOfSnapshot } from '../../cli/types/index';
import { DEMO, useReferenceServer } from '../helpers/reference-server';
import { TYPED_SNAPSHOT } from './typed-flags-snapshot';

const dir = mkdtempSync(join(tmpdir(), 'flagplane-cli-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `flagplane types` with `argv`: its exit code and what it wrote to each stream. */
async function run(...argv: string[]) {
  const written = { out: '', err: '' };
  const code = await runTypes(argv, { out: (text) => void (written.out += text), err: (text) => void (written.err += text) });
  return { code, ...written };
}

const saved = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('flagplane types --snapshot', () => {
  it('writes the module of a snapshot file to standard output', async () => {
    const result = await run('--snapshot', saved('snapshot.json', JSON.stringify(TYPED_SNAPSHOT)));
    expect(result).toEqual({ code: 0, out: typesOfSnapshot(TYPED_SNAPSHOT), err: '' });
  });

  it('writes it to --out, and says so on standard error', async () => {
    const out = join(dir, 'flags.ts');
    const result = await run('--snapshot', saved('snapshot.json', JSON.stringify(TYPED_SNAPSHOT)), '--out', out);
    expect(result).toEqual({ code: 0, out: '', err: `flagplane types: 6 flags of environment "production" written to ${out}\n` });
    expect(readFileSync(out, 'utf8')).toBe(typesOfSnapshot(TYPED_SNAPSHOT));
  });

  it('fails with 1 for a file it cannot read, that is not JSON or not a snapshot', async () => {
    const missing = await run('--snapshot', join(dir, 'missing.json'));
    expect([missing.code, missing.out]).toEqual([1, '']);
    expect(missing.err).toMatch(/^flagplane types: cannot read .*missing\.json: ENOENT/);
    const notJson = await run('--snapshot', saved('broken.json', '{"schemaVersion":'));
    expect([notJson.code, notJson.err]).toEqual([1, `flagplane types: ${join(dir, 'broken.json')}: not JSON\n`]);
    const notSnapshot = await run('--snapshot', saved('other.json', JSON.stringify({ ...TYPED_SNAPSHOT, schemaVersion: 2 })));
    expect(notSnapshot.code).toBe(1);
    expect(notSnapshot.err).toContain('has schemaVersion 2; this client supports 1');
  });

  it('fails with 1 when --out cannot be written', async () => {
    const result = await run('--snapshot', saved('snapshot.json', JSON.stringify(TYPED_SNAPSHOT)), '--out', join(dir, 'no-such-dir', 'flags.ts'));
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^flagplane types: cannot write .*no-such-dir\/flags\.ts: ENOENT/);
  });
});

describe('flagplane types: usage', () => {
  it('prints the usage for --help, and exits 0', async () => {
    const result = await run('--help');
    expect([result.code, result.err]).toEqual([0, '']);
    expect(result.out).toMatch(/^Usage: flagplane types \(--snapshot <file> \| --base-url <url> --key <sdk key>\) \[--out <file>\]\n/);
  });

  const MISTAKES: Array<[string, string[], string]> = [
    ['no source', [], 'give either --snapshot or --base-url'],
    ['both sources', ['--snapshot', 'a.json', '--base-url', 'http://localhost', '--key', 'k'], 'give either --snapshot or --base-url'],
    ['--base-url without --key', ['--base-url', 'http://localhost'], '--base-url needs --key'],
    ['a base URL that is not http(s)', ['--base-url', 'ftp://x', '--key', 'k'], '--base-url must be http(s)://host[/path] (got "ftp://x")'],
    ['an unknown option', ['--snapshot', 'a.json', '--output', 'x'], "Unknown option '--output'"],
    ['an option without its value', ['--snapshot'], "Option '--snapshot <value>' argument missing"],
  ];
  for (const [name, argv, message] of MISTAKES) {
    it(`exits 2 with the usage for ${name}`, async () => {
      const result = await run(...argv);
      expect([result.code, result.out]).toEqual([2, '']);
      expect(result.err).toContain(`flagplane types: ${message}`);
      expect(result.err).toContain('\nUsage: flagplane types');
    });
  }
});

describe('flagplane types --base-url (the reference server)', () => {
  const context = useReferenceServer();

  it('declares the flags a client key is served: the server-only ones are absent', async () => {
    const result = await run('--base-url', context.server.baseUrl, '--key', DEMO.prodClientKey);
    expect([result.code, result.err]).toEqual([0, '']);
    expect(result.out).toContain("  'checkout-button-color': 'blue' | 'green' | 'orange';\n");
    expect(result.out).toContain("  'new-checkout': boolean;\n  'search-page-size': number;\n");
    expect(result.out).toContain("  'spring-sale-banner': { show: boolean } | { ctaUrl: string; discountPercent: number; headline: string; show: boolean };\n");
    expect(result.out).not.toContain('payments-provider');
  });

  it('declares the server-only flags too for a server key, with a base URL ending in a slash', async () => {
    const result = await run('--base-url', `${context.server.baseUrl}/`, '--key', DEMO.prodServerKey);
    expect(result.code).toBe(0);
    expect(result.out).toContain("  'payments-provider': 'stripe' | 'adyen';\n");
  });

  it('fails with 1 for a key the server refuses, and for a server that is not there', async () => {
    const refused = await run('--base-url', context.server.baseUrl, '--key', 'svc_sdk_client_not_a_key_0001');
    expect(refused).toEqual({ code: 1, out: '', err: `flagplane types: GET ${context.server.baseUrl}/sdk/v1/snapshot answered 401 (is the key right?)\n` });
    const url = context.server.baseUrl;
    await context.server.close();
    const gone = await run('--base-url', url, '--key', DEMO.prodClientKey);
    expect([gone.code, gone.out]).toEqual([1, '']);
    expect(gone.err).toMatch(/^flagplane types: GET .*\/sdk\/v1\/snapshot failed: /);
  });
});
