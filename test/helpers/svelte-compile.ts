/**
 * Svelte components in the tests, without @sveltejs/vite-plugin-svelte: `svelte/compiler`
 * turns `.svelte` files (and the `.svelte.js` modules of @testing-library/svelte) into
 * JavaScript, for vitest (a Vite plugin, the DOM build) and for esbuild (a server bundle, a
 * Chromium page).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const svelteRoot = dirname(require.resolve('svelte/package.json'));
const svelteExports = JSON.parse(readFileSync(join(svelteRoot, 'package.json'), 'utf8')).exports as Record<string, string | Record<string, string>>;

// Loaded on first use: vitest.config.ts imports this file for every test run.
const compiler = () => import('svelte/compiler');

/**
 * A `.svelte` file's JavaScript: its `<script>` is plain JavaScript, runes or Svelte 4 syntax
 * (legacy mode). A `*.api4.svelte` file is also instantiated as Svelte 4 did it, `new App({ target })`.
 */
export async function compileComponent(source: string, filename: string, generate: 'client' | 'server'): Promise<string> {
  const compatibility = filename.endsWith('.api4.svelte') ? { componentApi: 4 as const } : undefined;
  return (await compiler()).compile(source, { filename, generate, ...(compatibility && { compatibility }) }).js.code;
}

/** Svelte's browser build of `svelte` or `svelte/…`, by its package.json's `browser` condition. */
function browserEntry(specifier: string): string | undefined {
  const entry = svelteExports[`.${specifier.slice('svelte'.length)}`];
  if (!entry) return undefined;
  const file = typeof entry === 'string' ? entry : (entry.browser ?? entry.default);
  return file ? join(svelteRoot, file) : undefined;
}

/**
 * For vitest: the DOM tests mount components, so `svelte` resolves to its browser build
 * (Node's conditions would pick the server build, whose `mount` throws), as
 * @testing-library/svelte's own Vite plugin arranges; `.svelte` files compile for the DOM.
 * Server rendering is checked through a bundle of its own (`svelteEsbuild('server')`).
 */
export function svelteForVitest() {
  return {
    name: 'flagplane-test-svelte',
    enforce: 'pre' as const,
    resolveId(source: string) {
      return /^svelte(\/[\w/-]+)?$/.test(source) && source !== 'svelte/compiler' ? browserEntry(source) : undefined;
    },
    async transform(code: string, id: string) {
      if (id.endsWith('.svelte')) return { code: await compileComponent(code, id, 'client'), map: null };
      if (/\.svelte\.js$/.test(id)) return { code: (await compiler()).compileModule(code, { filename: id, generate: 'client' }).js.code, map: null };
      return undefined;
    },
  };
}

/** For esbuild: `.svelte` files compiled for `generate` (the server's render, or the browser's). */
export function svelteEsbuild(generate: 'client' | 'server') {
  return {
    name: 'flagplane-test-svelte',
    setup(build: { onLoad: (options: { filter: RegExp }, load: (args: { path: string }) => Promise<{ contents: string; loader: 'js' }>) => void }) {
      build.onLoad({ filter: /\.svelte$/ }, async ({ path }) => ({ contents: await compileComponent(readFileSync(path, 'utf8'), path, generate), loader: 'js' }));
    },
  };
}
