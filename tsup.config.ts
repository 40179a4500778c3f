import { defineConfig } from 'tsup';

// One entry per public subpath (STYLE.md): an app pays only for what it imports.
export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    target: 'es2020',
    platform: 'neutral',
    sourcemap: true,
    treeshake: true,
  },
  {
    entry: {
      'reference-server/index': 'reference-server/index.ts',
      'reference-server/cli': 'reference-server/cli.ts',
    },
    format: ['esm', 'cjs'],
    dts: { entry: { 'reference-server/index': 'reference-server/index.ts' } },
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    external: ['ws'],
  },
]);
