/**
 * The Hermes suite's build: where the `hermes` binary is, and the app bundled as Metro would
 * resolve it (the `react-native` condition and main fields, the package from a built
 * `node_modules/flagplane`) and lowered by `@react-native/babel-preset`, as Metro transforms it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);
// Babel ships no type declarations: the one call used here.
const { transformAsync } = require('@babel/core') as {
  transformAsync(code: string, options: Record<string, unknown>): Promise<{ code?: string | null } | null>;
};
const app = fileURLToPath(new URL('./hermes-app/', import.meta.url));

/** hermes-engine-cli's binary; npm drops its exec bit, so it runs from a copy. */
export const HERMES_BINARY = join(root, 'node_modules/hermes-engine-cli/linux64-bin/hermes');

export type HermesAvailability = { kind: 'run' } | { kind: 'skip' | 'fail'; message: string };

/** Whether a runnable copy of the binary answers `-version`. */
function hermesStarts(): boolean {
  const copy = hermesCopy();
  try {
    return spawnSync(copy.path, ['-version'], { timeout: 10_000 }).status === 0;
  } finally {
    copy.remove();
  }
}

/**
 * Whether the suite can run: the binary is there and starts. If not, the suite is skipped with
 * one line — except with CI=true, where that is a failure.
 */
export function hermesAvailability(env: NodeJS.ProcessEnv = process.env, exists = existsSync, starts = hermesStarts): HermesAvailability {
  if (exists(HERMES_BINARY) && starts()) return { kind: 'run' };
  const why = `test/runtimes/hermes: ${HERMES_BINARY} (hermes-engine-cli) is missing or does not start on ${process.platform}-${process.arch}`;
  return env.CI === 'true' ? { kind: 'fail', message: `${why}, and CI=true` } : { kind: 'skip', message: `${why}; skipping the Hermes suite` };
}

/** A runnable copy of the binary in its own temporary folder. */
export function hermesCopy(): { path: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'flagplane-hermes-bin-'));
  const path = join(folder, 'hermes');
  copyFileSync(HERMES_BINARY, path);
  chmodSync(path, 0o755);
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** The example's React Native imports, mapped to the in-test stand-ins. */
const STAND_INS: Record<string, string> = {
  'react-native': 'export { AppState } from "./react-native-fakes";',
  '@react-native-async-storage/async-storage': 'export { AsyncStorage as default } from "./react-native-fakes";',
  '@react-native-community/netinfo': 'export { NetInfo as default } from "./react-native-fakes";',
};

function reactNativeApp(home: string): Plugin {
  return {
    name: 'react-native-app',
    setup(bundle) {
      // `flagplane` as the app installed it, through its package.json like Metro.
      bundle.onResolve({ filter: /^flagplane(\/|$)/ }, (args) =>
        args.resolveDir === home ? undefined : bundle.resolve(args.path, { kind: args.kind, resolveDir: home }),
      );
      bundle.onResolve({ filter: /^(react-native|@react-native-async-storage\/async-storage|@react-native-community\/netinfo)$/ }, (args) => ({
        path: args.path,
        namespace: 'stand-in',
      }));
      bundle.onLoad({ filter: /.*/, namespace: 'stand-in' }, (args) => ({ contents: STAND_INS[args.path], resolveDir: app, loader: 'ts' }));
    },
  };
}

/**
 * The app (hermes-app/app.ts and the example it runs) as one script for Hermes, with the
 * package resolved from `home/node_modules/flagplane`. Lowered with the preset's `default`
 * profile: its `hermes-stable` one keeps classes, which only Hermes V1 runs, not 0.12.
 */
export async function bundleApp(home: string): Promise<string> {
  const bundled = await build({
    entryPoints: [join(app, 'app.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    target: 'esnext',
    conditions: ['react-native'],
    mainFields: ['react-native', 'browser', 'main'],
    plugins: [reactNativeApp(home)],
    logLevel: 'silent',
  });
  const lowered = await transformAsync(bundled.outputFiles[0]!.text, {
    babelrc: false,
    configFile: false,
    sourceType: 'script',
    presets: [[require.resolve('@react-native/babel-preset'), { enableBabelRuntime: false, disableImportExportTransform: true, unstable_transformProfile: 'default' }]],
  });
  return lowered!.code!;
}
