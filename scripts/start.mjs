// `npm start`: the reference server with its console, fast. Builds the JavaScript (no type
// declarations, which take most of a full build) only when dist/ is missing or older than a
// source, then runs the CLI in this process, with the arguments given to npm start.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outputs = ['dist/reference-server/cli.js', 'dist/console/console.js'].map((file) => join(root, file));
const sources = ['src', 'adapters', 'react', 'reference-server', 'docs/schema', 'tsup.config.ts', 'package.json'];

/** The newest modification time under `path` (a file or a folder), 0 when it does not exist. */
function newest(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const builtAt = Math.min(...outputs.map((file) => newest(file)));
if (builtAt === 0 || sources.some((source) => newest(join(root, source)) > builtAt)) {
  const started = Date.now();
  process.stdout.write('building the reference server and its console… ');
  // tsup's command as its package.json names it, not a path inside its dist/.
  const manifest = createRequire(import.meta.url).resolve('tsup/package.json');
  const { bin } = createRequire(import.meta.url)(manifest);
  const build = spawnSync(process.execPath, [join(dirname(manifest), bin.tsup), '--silent'], {
    cwd: root,
    env: { ...process.env, FLAGPLANE_BUILD: 'js' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) {
    console.error('\nthe build failed; run npm run build to see why');
    process.exit(build.status ?? 1);
  }
  console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
}
await import(pathToFileURL(outputs[0]).href);
