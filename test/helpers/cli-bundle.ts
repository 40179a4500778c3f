import { build } from 'esbuild';
import { join } from 'node:path';

/** Bundles the reference server's CLI to `outfile` as tsup's entry does: esbuild, ESM, node20, ws external. */
export async function bundleCli(root: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [join(root, 'reference-server', 'cli.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['ws'],
    logLevel: 'silent',
  });
}
