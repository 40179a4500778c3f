/**
 * What `npm pack` ships (issue 23: the package was 2.8 MB unpacked, half of it source maps):
 * the built files, source maps for the ES module builds only, the Markdown docs without their
 * images, and each subpath's package.json stub (resolvers without `exports`: Metro, and
 * TypeScript's node10, test/runtimes/metro-resolution.test.ts). Reads the `dist/` of
 * `npm run build`, which removes the CommonJS maps (scripts/esm-maps-only.mjs), built first
 * where it is missing or stale (test/helpers/built-dist.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json';
import { ensureBuilt } from '../helpers/built-dist';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Packed {
  unpackedSize: number;
  files: Array<{ path: string; size: number }>;
}

let packed: Packed;
let paths: string[];

/** Every subpath but the root, `./package.json` and the reference server (Node only, exports-aware). */
const stubbed = Object.keys(packageJson.exports)
  .filter((subpath) => subpath.startsWith('./') && subpath !== './package.json' && subpath !== './reference-server')
  .map((subpath) => `${subpath.slice(2)}/package.json`);

describe('the packed package', () => {
  beforeAll(async () => {
    await ensureBuilt();
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    packed = (JSON.parse(out) as Packed[])[0]!;
    paths = packed.files.map((file) => file.path);
  }, 240_000);

  it('ships source maps for the ES module builds only, and no CommonJS file points at a map', () => {
    expect(paths.filter((path) => path.endsWith('.cjs.map'))).toEqual([]);
    for (const entry of ['dist/index.js.map', 'dist/browser/index.js.map', 'dist/react/index.js.map', 'dist/adapters/websocket.js.map']) {
      expect(paths, entry).toContain(entry);
    }
    const pointing = paths.filter((path) => path.endsWith('.cjs') && readFileSync(`${root}${path}`, 'utf8').includes('sourceMappingURL'));
    expect(pointing).toEqual([]);
  });

  it('keeps the package.json stub of every subpath, the CLI console and demo config, and the Markdown docs', () => {
    expect(stubbed.length).toBeGreaterThan(8);
    for (const stub of stubbed) expect(paths, stub).toContain(stub);
    for (const file of ['package.json', 'README.md', 'LICENSE', 'dist/console/console.js', 'reference-server/demo.json', 'docs/client.md', 'docs/schema/flag-snapshot.schema.json']) {
      expect(paths, file).toContain(file);
    }
  });

  it('ships the bins as ES modules only: package.json runs `.js`, and nothing loads a CommonJS bin', () => {
    const bins = Object.values(packageJson.bin);
    for (const bin of bins) expect(paths, bin).toContain(bin.replace(/^\.\//, ''));
    expect(paths.filter((path) => /^dist\/(cli\/|reference-server\/cli\.)/.test(path) && path.endsWith('.cjs'))).toEqual([]);
  });

  it('ships no sources, tests or images: only built files, declarations, JSON and Markdown', () => {
    const unexpected = paths.filter((path) => {
      if (/^(test|src|scripts)\//.test(path) || /\.(png|jpe?g|gif)$/.test(path)) return true;
      if (/\.d\.c?ts$/.test(path)) return false;
      return /\.tsx?$/.test(path) && !path.startsWith('docs/examples/');
    });
    expect(unexpected).toEqual([]);
  });

  // 2.5 MB after issue 23; issue 25 added the flagplane bin, the devtools entry and three docs; issue 27
  // the data plane's operations, issue 28 large environments: server-only (docs/size.md, Package contents).
  it('stays under 3.25 MB unpacked (3.7 MB with every map and docs/console.png before issue 23)', () => {
    expect(packed.unpackedSize).toBeLessThan(3_250_000);
  });
});
