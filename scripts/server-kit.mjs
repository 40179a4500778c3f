// What the server benchmarks share (scripts/bench-server.mjs, bench-flood.mjs, fanout-server.mjs,
// large-server.mjs): the reference server built from its sources, loaded in the process that
// imports this.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the repository, so that `ws` resolves from its node_modules; named after this checkout,
// since node_modules may be shared with other checkouts bundling their own sources.
const CHECKOUT = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
const OUTFILE = join(ROOT, `node_modules/.cache/flagplane-bench-server/${CHECKOUT}.mjs`);

/** esbuild options that bundle the TypeScript sources for Node, their packages left to node_modules. */
export const NODE_BUNDLE = { bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', write: true, logLevel: 'silent' };

/** Bundles reference-server/index.ts and imports it: `startReferenceServer` and the rest of its exports. */
export async function loadBundledServer() {
  await build({ ...NODE_BUNDLE, entryPoints: [join(ROOT, 'reference-server/index.ts')], outfile: OUTFILE });
  return import(pathToFileURL(OUTFILE).href);
}

/** Bundles reference-server/index.ts and starts it with `options`. */
export async function startBundledServer(options) {
  const { startReferenceServer } = await loadBundledServer();
  return startReferenceServer(options);
}
