/**
 * dist/ as `npm run build` makes it, for the tests that read the built package (the
 * OpenFeature and testing entries as an app imports them, the declarations in strict apps,
 * the packed file list). CI builds before it tests; where dist/ is missing or older than a
 * source it is built from (a fresh clone, an edit since the last build), the first test file
 * that needs it builds it, and the others wait for that build instead of racing it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Entries of each kind of output the tests read: JavaScript of both formats, declarations of both. */
const ENTRIES = [
  'dist/index.js',
  'dist/index.cjs',
  'dist/openfeature/index.js',
  'dist/openfeature/index.d.ts',
  'dist/testing/index.js',
  'dist/testing/index.d.cts',
  'dist/react/index.d.ts',
  'dist/reference-server/index.d.ts',
];
const SOURCES = ['src', 'openfeature', 'testing', 'adapters', 'react', 'reference-server', 'tsup.config.ts', 'package.json', 'scripts/esm-maps-only.mjs'];

/** The newest modification time of the files below `path` (or of `path`, a file). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether dist/ holds every entry the tests load, built after every source they come from. */
export function builtFromCurrentSources(): boolean {
  if (!ENTRIES.every((entry) => existsSync(join(root, entry)))) return false;
  const builtAt = Math.min(...ENTRIES.map((entry) => statSync(join(root, entry)).mtimeMs));
  return SOURCES.every((source) => newest(join(root, source)) <= builtAt);
}

/** A folder made atomically: whoever makes it builds; a lock older than the build's timeout is stale. */
const lock = join(tmpdir(), `flagplane-build-${createHash('sha1').update(root).digest('hex').slice(0, 12)}`);
const BUILD_TIMEOUT_MS = 240_000;

function tryLock(): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    const age = existsSync(lock) ? Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs : 0;
    if (age > BUILD_TIMEOUT_MS) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Builds dist/ unless it is current; about 30 s where it builds, nothing where CI has built. */
export async function ensureBuilt(): Promise<void> {
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  while (!builtFromCurrentSources()) {
    if (tryLock()) {
      try {
        if (!builtFromCurrentSources()) await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, timeout: BUILD_TIMEOUT_MS });
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    } else if (Date.now() > deadline) {
      throw new Error(`dist/ is not built from the current sources, and another test's build (lock ${lock}) did not finish`);
    } else {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
