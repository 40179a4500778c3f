/**
 * Metro resolves every browser-side subpath of the package as npm publishes it, with package
 * `exports` on (React Native 0.79+) and off (before 0.79, or turned off in metro.config.js),
 * to the built `dist/` file — never to a TypeScript source, even with `ts` in sourceExts.
 * Runs metro-resolver itself (its engines say Node ^22.13; it runs on Node 20 as is).
 */
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metroContext, packedLayout, type PackedLayout } from './metro-layout';
import packageJson from '../../package.json';

const { resolve } = createRequire(import.meta.url)('metro-resolver') as {
  resolve: (context: unknown, moduleName: string, platform: string | null) => { type: string; filePath?: string };
};

type Entry = { types: string; default: string };
type Target = Record<'react-native' | 'import' | 'require', Entry>;
const exportsMap = packageJson.exports as unknown as Record<string, Target | string>;
/** Every subpath but the reference server has a package.json of its own for resolvers without exports. */
const subpaths = Object.keys(exportsMap).filter((subpath) => subpath.startsWith('./') && subpath !== './package.json' && subpath !== './reference-server');
/** What an app bundled for a phone can import: not the Node-only file adapter. */
const phoneSubpaths = subpaths.filter((subpath) => subpath !== './adapters/file');
const target = (subpath: string) => exportsMap[subpath] as Target;
const specifier = (subpath: string) => (subpath === '.' ? 'flagplane' : `flagplane${subpath.slice(1)}`);

// Metro's defaults before 0.79 had no `cjs`; `ts` first to catch a source shipped by mistake.
const OLD_EXTS = ['ts', 'tsx', 'js', 'jsx', 'json'];
const NEW_EXTS = ['ts', 'tsx', 'js', 'jsx', 'json', 'cjs', 'mjs'];

// One build per app: the root and every subpath resolve to the CommonJS build in each mode,
// or an app would hold two copies of the core's chunks (and two of each error class). With
// exports on, a subpath's own package.json is the package Metro finds for it, so the root's
// `react-native` condition names the same build its `main` field does.
const MODES = [
  { name: 'exports on, require', exports: true, conditions: ['react-native', 'require'], sourceExts: NEW_EXTS, file: (t: Target) => t['react-native'].default },
  { name: 'exports on, import', exports: true, conditions: ['react-native', 'import'], sourceExts: NEW_EXTS, file: (t: Target) => t['react-native'].default },
  // Without exports Metro reads `main` (the mainFields end there), the subpaths their own.
  { name: 'exports off', exports: false, conditions: [], sourceExts: OLD_EXTS, file: (t: Target) => t.require.default },
];

let layout: PackedLayout;
beforeAll(async () => {
  layout = await packedLayout();
}, 60_000);
afterAll(() => layout?.remove());

describe.each(MODES)('Metro, $name', (mode) => {
  it.each(['.', ...phoneSubpaths].map((subpath) => [specifier(subpath), subpath]))('resolves %s to its built file in dist/', (name, subpath) => {
    const resolution = resolve(metroContext(layout.home, mode), name, 'ios');
    expect(resolution.type).toBe('sourceFile');
    expect(resolution.filePath).toBe(join(layout.dir, mode.file(target(subpath))));
    expect(existsSync(resolution.filePath!)).toBe(true);
    expect(resolution.filePath).toMatch(/\.cjs$/);
  });
});

describe('the published layout', () => {
  it('ships no TypeScript source where an import can reach it, only declarations', () => {
    // docs/ is published as documentation: its examples are read, never imported.
    const sources = layout.packed.filter((path) => /\.tsx?$/.test(path) && !/\.d\.c?ts$/.test(path));
    expect(sources.filter((path) => !path.startsWith('docs/'))).toEqual([]);
  });

  it('has, for each subpath, a package.json whose main, module and types are what exports names', () => {
    for (const subpath of subpaths) {
      const stub = `${subpath.slice(2)}/package.json`;
      expect(layout.packed).toContain(stub);
      const fields = JSON.parse(readFileSync(join(layout.dir, stub), 'utf8')) as Record<string, string>;
      const up = '../'.repeat(subpath.split('/').length - 1);
      expect({ main: fields.main, module: fields.module, types: fields.types }).toEqual({
        main: up + target(subpath).require.default.slice(2),
        module: up + target(subpath).import.default.slice(2),
        types: up + target(subpath).import.types.slice(2),
      });
    }
  });
});
