import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { svelteForVitest } from './test/helpers/svelte-compile.js';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
// Node 25 and later define a global `localStorage` (undefined without --localstorage-file)
// that hides the DOM environment's own; Node 20 rejects the flag that turns it off.
const nodeMajor = Number(process.versions.node.split('.')[0]);

export default defineConfig({
  // Svelte components in tests: `svelte` resolves to its browser build, `.svelte` files compile (test/svelte).
  plugins: [svelteForVitest()],
  // Tests that import the package by name, as an app does, get the sources (like the
  // `paths` of tsconfig.json). Exact matches: `flagplane` alone must not swallow its subpaths.
  resolve: {
    alias: [
      { find: /^flagplane$/, replacement: source('./src/index.ts') },
      { find: /^flagplane\/react$/, replacement: source('./react/index.ts') },
      { find: /^flagplane\/vue$/, replacement: source('./vue/index.ts') },
      { find: /^flagplane\/stream$/, replacement: source('./src/stream/index.ts') },
      { find: /^flagplane\/adapters\/([\w-]+)$/, replacement: source('./adapters/$1.ts') },
      { find: /^flagplane\/testing$/, replacement: source('./testing/index.ts') },
      { find: /^flagplane\/openfeature$/, replacement: source('./openfeature/index.ts') },
      { find: /^flagplane\/devtools$/, replacement: source('./devtools/index.ts') },
      { find: /^flagplane\/svelte$/, replacement: source('./svelte/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 15000,
    hookTimeout: 15000,
    pool: 'forks',
    // Through Vite, so that its `svelte` is the browser build and its `.svelte.js` modules compile.
    server: { deps: { inline: [/@testing-library\/svelte/] } },
    execArgv: nodeMajor >= 25 ? ['--no-experimental-webstorage'] : [],
  },
});
