import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as entry from 'flagplane/testing';
import tsupConfig from '../../tsup.config';
import { createTestClient } from '../../testing/index';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe("the entry 'flagplane/testing'", () => {
  it('imported by its package name, as a test of an app does, exports createTestClient and nothing else', () => {
    expect(Object.keys(entry)).toEqual(['createTestClient']);
    expect(entry.createTestClient).toBe(createTestClient);
    expect(entry.createTestClient({ flags: { theme: 'dark' } }).get('theme')).toBe('dark');
  });

  it('is a subpath export built by a neutral-platform tsup entry (ESM, CJS, .d.ts) with the core', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, unknown> };
    expect(pkg.exports['./testing']).toEqual({
      // React Native bundlers take the CommonJS build for every entry (test/runtimes/metro-resolution.test.ts).
      'react-native': { types: './dist/testing/index.d.cts', default: './dist/testing/index.cjs' },
      workerd: {
        import: { types: './dist/testing/index.d.ts', default: './dist/testing/index.js' },
        require: { types: './dist/testing/index.d.cts', default: './dist/testing/index.cjs' },
      },
      'edge-light': {
        import: { types: './dist/testing/index.d.ts', default: './dist/testing/index.js' },
        require: { types: './dist/testing/index.d.cts', default: './dist/testing/index.cjs' },
      },
      // The core's browser build (test/package/browser-build.test.ts).
      browser: {
        import: { types: './dist/testing/index.d.ts', default: './dist/browser/testing/index.js' },
        require: { types: './dist/testing/index.d.cts', default: './dist/browser/testing/index.cjs' },
      },
      import: { types: './dist/testing/index.d.ts', default: './dist/testing/index.js' },
      require: { types: './dist/testing/index.d.cts', default: './dist/testing/index.cjs' },
    });
    const configs = tsupConfig as unknown as Array<{ entry: Record<string, string>; format: string[]; platform: string; dts: unknown }>;
    const config = configs.find(({ entry: entries, dts }) => entries['testing/index'] && dts !== false)!;
    expect(config.entry['testing/index']).toBe('testing/index.ts');
    // Built with the core, so `instanceof SchemaError` holds for what setSnapshot throws.
    expect(config.entry.index).toBe('src/index.ts');
    expect(config).toMatchObject({ format: ['esm', 'cjs'], platform: 'neutral' });
    expect(config.dts).not.toBe(false);
  });

  it("is not part of the core's browser bundle", async () => {
    const result = await build({
      entryPoints: ['src/index.ts'],
      absWorkingDir: root,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'browser',
      format: 'esm',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((input) => input.startsWith('src/'))).toBe(true);
    expect(inputs.filter((input) => input.startsWith('testing/'))).toEqual([]);
  });
});
