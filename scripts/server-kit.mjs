// What the server benchmarks share (scripts/bench-server.mjs, scripts/bench-flood.mjs): the
// reference server built from its sources, started in the process that imports this.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the repository, so that `ws` resolves from its node_modules.
const OUTFILE = join(ROOT, 'node_modules/.cache/flagplane-bench-server/reference-server.mjs');

/** esbuild options that bundle the TypeScript sources for Node, their packages left to node_modules. */
export const NODE_BUNDLE = { bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', write: true, logLevel: 'silent' };

/** Bundles reference-server/index.ts and starts it with `options`. */
export async function startBundledServer(options) {
  await build({ ...NODE_BUNDLE, entryPoints: [join(ROOT, 'reference-server/index.ts')], outfile: OUTFILE });
  const { startReferenceServer } = await import(pathToFileURL(OUTFILE).href);
  return startReferenceServer(options);
}
