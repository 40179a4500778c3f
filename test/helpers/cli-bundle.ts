import { build } from 'esbuild';
import { join } from 'node:path';

/**
 * Bundles a bin (the reference server's CLI unless `entry` names another, e.g. cli/flagplane.ts)
 * to `outfile` as tsup's entry does: esbuild, ESM, node20, ws external.
 */
export async function bundleCli(root: string, outfile: string, entry = join('reference-server', 'cli.ts')): Promise<void> {
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['ws'],
    logLevel: 'silent',
  });
}
