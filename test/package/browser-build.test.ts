import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import tsupConfig from '../../tsup.config';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, Record<string, unknown>> };
const configs = tsupConfig as unknown as Array<{ entry: Record<string, string>; outDir?: string; define?: Record<string, string>; format: string[]; dts: unknown }>;
const coreBuilds = configs.filter(({ entry }) => entry.index === 'src/index.ts');

/** What only other runtimes need, as it reads in a minified bundle. */
const OTHER_RUNTIMES_ONLY = {
  'the cache-field retry (old workerd)': /'cache'/,
  'the missing-platform check (bare Hermes)': /flagplane needs/,
  'the URL fallback (bare Hermes)': /typeof URL/,
  "a BroadcastChannel's unref (Node)": /\.unref\b/,
};

async function bundle(define: Record<string, string>): Promise<string> {
  const result = await build({
    stdin: {
      contents: `import { createClient } from './src/index.ts';
import { webSocketTransport } from './adapters/websocket.ts';
console.log(createClient, webSocketTransport);`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    define,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('the browser build', () => {
  it('is the core built a second time, entry for entry, into dist/browser with __FLAGPLANE_BROWSER__ defined', () => {
    const [everywhere, browser] = coreBuilds;
    expect(coreBuilds).toHaveLength(2);
    expect(everywhere!.outDir ?? 'dist').toBe('dist');
    expect(everywhere!.define?.__FLAGPLANE_BROWSER__).toBeUndefined();
    expect(browser).toMatchObject({ outDir: 'dist/browser', define: { __FLAGPLANE_BROWSER__: 'true' }, format: ['esm', 'cjs'], dts: false });
    expect(browser!.entry).toEqual(everywhere!.entry);
  });

  it('is what the browser condition of every core entry serves, after react-native and workerd, with the same types', () => {
    const entries = Object.keys(coreBuilds[0]!.entry).map((name) => (name === 'index' ? '.' : `./${name.replace(/\/index$/, '')}`));
    for (const name of entries) {
      const conditions = pkg.exports[name]!;
      expect(Object.keys(conditions), name).toEqual(['react-native', 'workerd', 'edge-light', 'browser', 'import', 'require']);
      const { import: esm, require: cjs } = conditions as Record<'import' | 'require', { types: string; default: string }>;
      // Cloudflare's bundler asks for workerd, Next's edge runtime for edge-light, before browser:
      // code with no page and no HTTP cache gets the build for every runtime.
      expect(conditions.workerd, name).toEqual({ import: esm, require: cjs });
      expect(conditions['edge-light'], name).toEqual({ import: esm, require: cjs });
      expect(conditions.browser, name).toEqual({
        import: { types: esm.types, default: esm.default.replace('./dist/', './dist/browser/') },
        require: { types: cjs.types, default: cjs.default.replace('./dist/', './dist/browser/') },
      });
    }
  });

  it('leaves out what only other runtimes need, which the build for every runtime keeps', async () => {
    const [browser, everywhere] = await Promise.all([bundle({ __FLAGPLANE_BROWSER__: 'true' }), bundle({})]);
    for (const [what, pattern] of Object.entries(OTHER_RUNTIMES_ONLY)) {
      expect(browser, what).not.toMatch(pattern);
      expect(everywhere, what).toMatch(pattern);
    }
    expect(browser.length).toBeLessThan(everywhere.length);
  });
});
