import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The console's entry; the build (tsup.config.ts) makes dist/console/console.js from it. */
export const CONSOLE_ENTRY = join(ROOT, 'reference-server', 'console', 'main.tsx');

export interface ConsoleBundle {
  /** Holds console.js: pass it as the reference server's `consoleDir`. */
  readonly dir: string;
  /** Removes the directory. */
  remove(): void;
}

/**
 * Bundles the console as the build does (ESM for the browser, React in production mode) into
 * a fresh temporary directory, as `console.js`, so the tests serve the sources in the tree.
 */
export async function bundleConsole(): Promise<ConsoleBundle> {
  const dir = mkdtempSync(join(tmpdir(), 'flagplane-console-'));
  try {
    await build({
      entryPoints: { console: CONSOLE_ENTRY },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      jsx: 'automatic',
      // The package's browser build (its `browser` condition), as a bundler picks it.
      define: { 'process.env.NODE_ENV': '"production"', __FLAGPLANE_BROWSER__: 'true' },
      sourcemap: 'inline',
      write: true,
      outdir: dir,
      logLevel: 'silent',
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
