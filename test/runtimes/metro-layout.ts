/**
 * The package as npm installs it, for Metro's resolver: the files `npm pack` would publish
 * (package.json's `files`, read by npm itself), with `dist/` built by the repository's tsup
 * configuration (the browser entries, JavaScript only) into a temporary
 * `node_modules/flagplane`, and a one-line app beside it to resolve from.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import tsupConfig from '../../tsup.config';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface PackedLayout {
  home: string;
  dir: string;
  /** Every path `npm pack` lists (dist/ as built here), relative to the package. */
  packed: string[];
  remove(): void;
}

/** The paths npm would publish, from `npm pack --dry-run` (no tarball is written). */
export function packedPaths(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
}

export async function packedLayout(): Promise<PackedLayout> {
  const home = mkdtempSync(join(tmpdir(), 'flagplane-metro-'));
  const dir = join(home, 'node_modules', 'flagplane');
  const outside = packedPaths().filter((path) => !path.startsWith('dist/'));
  for (const path of outside) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    copyFileSync(join(root, path), join(dir, path));
  }
  // Every configuration whose output a browser or React Native app can import.
  type Config = Record<string, unknown> & { entry: Record<string, string>; platform?: string };
  for (const config of (tsupConfig as unknown as Config[]).filter((each) => each.platform === 'neutral')) {
    const entry = Object.fromEntries(Object.entries(config.entry).map(([name, file]) => [name, join(root, file)]));
    await build({ ...(config as Parameters<typeof build>[0]), entry, dts: false, sourcemap: false, silent: true, outDir: join(dir, 'dist'), config: false });
  }
  writeFileSync(join(home, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  writeFileSync(join(home, 'App.js'), "import 'flagplane';\n");
  const packed = [...outside, ...listDist(join(dir, 'dist')).map((path) => `dist/${path}`)];
  return { home, dir, packed, remove: () => rmSync(home, { recursive: true, force: true }) };
}

function listDist(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
    .sort();
}

/**
 * A resolution context as Metro builds one (metro/src/node-haste/DependencyGraph/
 * ModuleResolution.js) over the real file system: no haste, hierarchical node_modules lookup,
 * package.json files read as they are.
 */
export function metroContext(home: string, options: { exports: boolean; conditions: string[]; sourceExts: string[] }) {
  const getPackage = (path: string) => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : null);
  const getPackageForModule = (modulePath: string) => {
    // From the path itself, as Metro's hierarchical lookup does: a package's folder is inside it.
    for (let folder = modulePath; folder !== dirname(folder); folder = dirname(folder)) {
      const packageJson = getPackage(join(folder, 'package.json'));
      if (packageJson) return { packageJson, rootPath: folder, packageRelativePath: relative(folder, modulePath) };
    }
    return null;
  };
  const fileSystemLookup = (path: string) => {
    const absolute = resolvePath(home, path);
    if (!existsSync(absolute)) return { exists: false as const };
    return { exists: true as const, type: statSync(absolute).isDirectory() ? ('d' as const) : ('f' as const), realPath: absolute };
  };
  return {
    allowHaste: false,
    assetExts: new Set(['png', 'jpg', 'gif', 'ttf']),
    customResolverOptions: {},
    disableHierarchicalLookup: false,
    doesFileExist: (path: string) => existsSync(path) && statSync(path).isFile(),
    extraNodeModules: null,
    dev: true,
    getPackage,
    getPackageForModule,
    fileSystemLookup,
    mainFields: ['react-native', 'browser', 'main'],
    originModulePath: join(home, 'App.js'),
    nodeModulesPaths: [],
    preferNativePlatform: true,
    resolveAsset: () => null,
    resolveHasteModule: () => null,
    resolveHastePackage: () => null,
    sourceExts: options.sourceExts,
    unstable_conditionNames: options.conditions,
    unstable_conditionsByPlatform: { web: ['browser'] },
    unstable_enablePackageExports: options.exports,
    unstable_incrementalResolution: false,
    unstable_logWarning: (message: string) => {
      throw new Error(`Metro warned: ${message}`);
    },
  };
}
