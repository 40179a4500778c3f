// `flagplane/openfeature` and `flagplane/testing` as an app gets them: the built package imported by name from ESM and
// CommonJS, and the examples of docs/openfeature.md run as written against a reference server.
// Both need dist/, built first where it is missing or stale (test/helpers/built-dist.ts), so
// that `npm test` never skips these tests nor runs them on stale code.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { ensureBuilt } from '../helpers/built-dist';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

// About 30 s where it builds (declarations included); nothing where CI has built already.
beforeAll(ensureBuilt, 240_000);

// An app's folder: its node_modules holds flagplane (this package) and the OpenFeature SDKs.
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'flagplane-app-'));
  mkdirSync(join(scratch, 'node_modules'));
  symlinkSync(root, join(scratch, 'node_modules/flagplane'), 'dir');
  symlinkSync(join(root, 'node_modules/@openfeature'), join(scratch, 'node_modules/@openfeature'), 'dir');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const node = async (file: string, source: string) => {
  const path = join(scratch, file);
  writeFileSync(path, source);
  const { stdout } = await run(process.execPath, [path], { cwd: scratch, timeout: 20_000 });
  return stdout;
};

describe('flagplane/openfeature, built', () => {
  it('imports from ESM and CommonJS, with its types declared', async () => {
    const esm = await node('esm.mjs', "import * as of from 'flagplane/openfeature'; console.log(Object.keys(of).sort().join(' '));");
    const cjs = await node('cjs.cjs', "const of = require('flagplane/openfeature'); console.log(Object.keys(of).sort().join(' '));");
    expect(esm.trim()).toBe('FlagplaneServerProvider FlagplaneWebProvider toFlagplaneContext');
    expect(cjs.trim()).toBe(esm.trim());
    const types = readFileSync(join(root, 'dist/openfeature/index.d.ts'), 'utf8');
    expect(types).toMatch(/declare class FlagplaneWebProvider/);
    expect(types).toMatch(/declare class FlagplaneServerProvider/);
    expect(existsSync(join(root, 'dist/openfeature/index.d.cts'))).toBe(true);
  });

  it('flagplane/testing too: a test client from ESM and CommonJS, sharing the core’s error classes', async () => {
    const script = (load: string) =>
      `${load}
const client = createTestClient({ flags: { theme: 'dark' } });
client.set('theme', 'light');
let typed;
try { client.setSnapshot({}); } catch (error) { typed = error instanceof SchemaError; }
console.log(client.get('theme'), typed);`;
    const esm = await node('testing.mjs', script("import { createTestClient } from 'flagplane/testing'; import { SchemaError } from 'flagplane';"));
    const cjs = await node('testing.cjs', script("const { createTestClient } = require('flagplane/testing'); const { SchemaError } = require('flagplane');"));
    expect(esm.trim()).toBe('light true');
    expect(cjs.trim()).toBe('light true');
    expect(existsSync(join(root, 'dist/testing/index.d.ts')) && existsSync(join(root, 'dist/testing/index.d.cts'))).toBe(true);
  });

  describe('docs/openfeature.md examples', () => {
    let server: ReferenceServer;
    beforeAll(async () => {
      server = await startReferenceServer({ port: 0 });
    });
    afterAll(() => server.close());

    const examples = [...readFileSync(join(root, 'docs/openfeature.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map(([, code]) => code!);
    const onServer = (code: string) => code.replaceAll('http://127.0.0.1:8787', server.baseUrl);

    it('has the browser and the server example', () => {
      expect(examples).toHaveLength(2);
    });

    it('the browser example prints what its comments say', async () => {
      const out = (await node('web-example.mjs', onServer(examples[0]!))).trim().split('\n');
      expect(out[0]).toBe('true');
      expect(out.join('\n')).toMatch(/reason: 'SPLIT'/);
      expect(out.join('\n')).toMatch(/value: '(green|orange)'/);
      expect(out.join('\n')).toMatch(/variant: '(green|orange)-button'/);
      expect(out.join('\n')).toMatch(/flagMetadata: \{ owner: 'checkout-team', experiment: true \}/);
    });

    it('the server example prints what its comments say', async () => {
      const out = (await node('server-example.mjs', onServer(examples[1]!))).trim().split('\n');
      expect(out[0]).toBe('50');
      expect(['stripe', 'adyen']).toContain(out[1]);
    });
  });
});
