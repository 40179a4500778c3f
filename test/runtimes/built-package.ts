import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import tsupConfig from '../../tsup.config';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A package built for a runtime suite: `dir` is `<tmp>/node_modules/flagplane`. */
export interface BuiltPackage {
  /** The folder that holds `node_modules/flagplane` (put a runtime's script here). */
  readonly home: string;
  /** The package's own folder: its package.json and dist/ as `npm pack` ships them. */
  readonly dir: string;
  /** Removes the whole temporary folder. */
  remove(): void;
}

/**
 * Builds the package's browser-and-edge entries (the core, `stream`, the adapters, `testing`;
 * JavaScript only, for every runtime and for browsers) with the repository's own tsup configuration into a temporary
 * `node_modules/flagplane`, so a runtime imports what npm would install: `dist/` as published,
 * resolved through package.json's `exports`. A folder per call: suites running side by side
 * never read a build another one is writing.
 */
export async function builtPackage(): Promise<BuiltPackage> {
  const home = mkdtempSync(join(tmpdir(), 'flagplane-runtime-'));
  const dir = join(home, 'node_modules', 'flagplane');
  mkdirSync(dir, { recursive: true });
  const configs = tsupConfig as unknown as Array<Record<string, unknown> & { entry: Record<string, string>; outDir?: string }>;
  // The core's two builds: for every runtime (dist/) and for browsers (dist/browser/).
  for (const core of configs.filter(({ entry }) => entry.index === 'src/index.ts')) {
    const entry = Object.fromEntries(Object.entries(core.entry).map(([name, file]) => [name, join(root, file)]));
    await build({ ...core, entry, dts: false, sourcemap: false, silent: true, outDir: join(dir, core.outDir ?? 'dist'), config: false });
  }
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  return { home, dir, remove: () => rmSync(home, { recursive: true, force: true }) };
}
