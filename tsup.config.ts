import { defineConfig } from 'tsup';

// `npm start` builds without type declarations (scripts/start.mjs): they take most of the
// build's time and the reference server does not need them. `npm run build` makes them all.
const declarations = process.env.FLAGPLANE_BUILD !== 'js';

// One entry per public subpath (STYLE.md): an app pays only for what it imports. The core's
// entries and the adapters built on it share chunks, so `instanceof FlagplaneError` (and
// `StreamError`) holds across subpaths — `adapters/ws` included, with `ws` left external.
// The bindings and the providers import the core as the package itself, so an app holds one copy.
const coreAsPackage = {
  name: 'core-as-package',
  setup(build: { onResolve: (options: { filter: RegExp }, resolve: () => { path: string; external: boolean }) => void }) {
    build.onResolve({ filter: /^\.\.\/src\/index$/ }, () => ({ path: 'flagplane', external: true }));
  },
};

// The core's entries, built twice: for every runtime (dist/), and for browsers (dist/browser/,
// package.json's `browser` condition), where `__FLAGPLANE_BROWSER__` drops the code only other
// runtimes need (src/shared/browser-build.d.ts). Each build shares its own chunks.
const coreEntries = {
  index: 'src/index.ts',
  stream: 'src/stream/index.ts',
  'adapters/websocket': 'adapters/websocket.ts',
  'adapters/local-storage': 'adapters/local-storage.ts',
  'adapters/indexeddb': 'adapters/indexeddb.ts',
  'adapters/memory': 'adapters/memory.ts',
  'adapters/async-storage': 'adapters/async-storage.ts',
  'adapters/ws': 'adapters/ws.ts',
  // Test clients throw and report the core's error classes: built with its chunks too.
  'testing/index': 'testing/index.ts',
};

export default defineConfig([
  {
    entry: coreEntries,
    format: ['esm', 'cjs'],
    dts: declarations,
    target: 'es2020',
    platform: 'neutral',
    sourcemap: true,
    splitting: true,
    treeshake: true,
    external: ['ws'],
  },
  {
    entry: coreEntries,
    format: ['esm', 'cjs'],
    dts: false,
    target: 'es2020',
    platform: 'neutral',
    outDir: 'dist/browser',
    define: { __FLAGPLANE_BROWSER__: 'true' },
    sourcemap: true,
    splitting: true,
    treeshake: true,
    external: ['ws'],
  },
  {
    entry: {
      'adapters/file': 'adapters/file.ts',
      'reference-server/index': 'reference-server/index.ts',
      'reference-server/cli': 'reference-server/cli.ts',
      'cli/flagplane': 'cli/flagplane.ts',
    },
    format: ['esm', 'cjs'],
    dts: declarations && {
      entry: {
        'adapters/file': 'adapters/file.ts',
        'reference-server/index': 'reference-server/index.ts',
      },
    },
    target: 'node20',
    platform: 'node',
    // The bins find the console beside them through import.meta.url, in the CommonJS build too.
    shims: true,
    sourcemap: true,
    // The engines' clients are optional peers, imported only with --redis / --postgres.
    external: ['ws', 'ioredis', 'pg'],
  },
  {
    // The React and Vue bindings, the OpenFeature providers (docs/openfeature.md), which load only
    // @openfeature/core at run time (the web and server SDKs are imported for their types),
    // the in-page devtools (docs/devtools.md), and the Vue and Svelte bindings (docs/vue.md, docs/svelte.md).
    entry: {
      'react/index': 'react/index.ts',
      'vue/index': 'vue/index.ts',
      'svelte/index': 'svelte/index.ts',
      'openfeature/index': 'openfeature/index.ts',
      'devtools/index': 'devtools/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: declarations,
    target: 'es2020',
    platform: 'neutral',
    sourcemap: true,
    // Rollup's tree-shaking strips the 'use client' directive; esbuild keeps it.
    treeshake: false,
    external: ['react', 'react-dom', 'react/jsx-runtime', 'vue', 'flagplane', /^@openfeature\//, /^svelte(\/|$)/],
    esbuildPlugins: [coreAsPackage],
  },
  {
    // The reference server's console (GET /, docs/console.md): one browser script with React
    // and the SDK inside, served from dist/console/ by the CLI.
    entry: { 'console/console': 'reference-server/console/main.tsx' },
    format: ['esm'],
    platform: 'browser',
    target: 'es2020',
    dts: false,
    minify: true,
    splitting: false,
    noExternal: [/.*/],
    define: { 'process.env.NODE_ENV': '"production"', __FLAGPLANE_BROWSER__: 'true' },
  },
]);
