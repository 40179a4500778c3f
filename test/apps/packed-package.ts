import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import tsupConfig from '../../tsup.config';

const root = fileURLToPath(new URL('../..', import.meta.url));

type TsupConfig = Record<string, unknown> & { entry: Record<string, string>; outDir?: string; dts?: unknown };

const absolute = (entry: Record<string, string>) => Object.fromEntries(Object.entries(entry).map(([name, file]) => [name, isAbsolute(file) ? file : join(root, file)]));

/**
 * `npm pack` of the package as `npm run build` makes it (types included: the apps type-check
 * against them), built with the repository's tsup configuration into a temporary copy of the
 * published files, so the worktree's dist/ is neither needed nor touched. The console build
 * (a minified React app the apps never load) is left out. Returns the tarball's path; the
 * caller removes `dir`.
 */
export async function packPackage(): Promise<{ tarball: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'flagplane-pack-'));
  const pkg = join(dir, 'package');
  mkdirSync(pkg);
  for (const config of tsupConfig as unknown as TsupConfig[]) {
    if ('console/console' in config.entry) continue;
    const dts = typeof config.dts === 'object' && config.dts !== null ? { ...config.dts, entry: absolute((config.dts as { entry: Record<string, string> }).entry) } : (config.dts as boolean | undefined);
    await build({ ...config, entry: absolute(config.entry), dts, silent: true, outDir: join(pkg, config.outDir ?? 'dist'), config: false });
  }
  for (const file of ['package.json', 'README.md', 'LICENSE', 'reference-server/demo.json']) cpSync(join(root, file), join(pkg, file));
  cpSync(join(root, 'docs'), join(pkg, 'docs'), { recursive: true });
  // The subpaths' package.json stubs (package.json `files`), for resolvers without `exports`.
  const stubs = ['stream', 'react', 'vue', 'openfeature', 'testing', ...readdirSync(join(root, 'adapters'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `adapters/${entry.name}`)];
  for (const stub of stubs) cpSync(join(root, stub, 'package.json'), join(pkg, stub, 'package.json'));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: pkg, encoding: 'utf8' }).trim().split('\n').pop()!;
  return { tarball: join(dir, name), dir };
}

/** Extracts `tarball` as `<home>/node_modules/flagplane`, as `npm install <tarball>` would. */
export function installTarball(tarball: string, home: string): void {
  const target = join(home, 'node_modules', 'flagplane');
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
}
