/**
 * The package's declarations in strict apps (issue 23): sample apps compiled by the TypeScript
 * compiler against the built `.d.ts` files as npm ships them, under each module resolution an
 * app may use, with `strict` and `exactOptionalPropertyTypes`. `skipLibCheck`, as apps have it:
 * checking React's and Node's own declarations four times would take most of 20 s. dist/ is
 * built first where it is missing or stale (test/helpers/built-dist.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/built-dist';
import { packedPaths } from '../runtimes/metro-layout';
import { expectedErrors, SAMPLE_APPS } from './sample-apps';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The packages the declarations (and the samples) import, linked from the repository's. */
const LINKED = ['react', '@types', '@openfeature', 'ws', 'ioredis', 'pg'];

const MODES: Array<{ name: string; options: ts.CompilerOptions; type: 'module' | 'commonjs' }> = [
  { name: 'bundler', type: 'module', options: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler } },
  { name: 'node16', type: 'module', options: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 } },
  { name: 'nodenext, CommonJS app', type: 'commonjs', options: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext } },
  { name: 'node (node10)', type: 'commonjs', options: { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 } },
];

const STRICT: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  jsx: ts.JsxEmit.ReactJSX,
  types: ['node'],
  noEmit: true,
};

let home: string;

/** Parsed declaration files (the libs, @types/node, React's), shared by the four programs. */
const parsed = new Map<string, ts.SourceFile | undefined>();

function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, ...rest) => {
    if (!fileName.endsWith('.d.ts') || fileName.includes('/flagplane/')) return read(fileName, version, ...rest);
    const key = `${fileName}|${JSON.stringify(version)}`;
    if (!parsed.has(key)) parsed.set(key, read(fileName, version, ...rest));
    return parsed.get(key);
  };
  return host;
}

/** `<tmp>/node_modules/flagplane` with what `npm pack` ships of the declarations and package.json files. */
function installDeclarations(): void {
  home = mkdtempSync(join(tmpdir(), 'flagplane-types-'));
  const dir = join(home, 'node_modules', 'flagplane');
  const shipped = packedPaths().filter((path) => /\.d\.c?ts$|(^|\/)package\.json$/.test(path));
  for (const path of shipped) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    copyFileSync(join(root, path), join(dir, path));
  }
  for (const name of LINKED) symlinkSync(join(root, 'node_modules', name), join(home, 'node_modules', name), 'dir');
}

function compile(mode: (typeof MODES)[number]): Map<string, ts.Diagnostic[]> {
  const app = join(home, mode.name.replace(/\W+/g, '-'));
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: mode.type }));
  const files = Object.entries(SAMPLE_APPS).map(([name, source]) => {
    // ESM apps under node16 import their own files with the extension they will have.
    const text = mode.type === 'module' && mode.name !== 'bundler' ? source.replace("from './untyped'", "from './untyped.js'") : source;
    writeFileSync(join(app, name), text);
    return join(app, name);
  });
  const options = { ...STRICT, ...mode.options, typeRoots: [join(home, 'node_modules', '@types')] };
  const program = ts.createProgram(files, options, cachingHost(options));
  const byLine = new Map<string, ts.Diagnostic[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.slice(app.length + 1)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start!).line + 1}`
      : 'global';
    byLine.set(where, [...(byLine.get(where) ?? []), diagnostic]);
  }
  return byLine;
}

const describeError = (diagnostic: ts.Diagnostic) => `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;

describe('the declarations in strict apps', () => {
  beforeAll(async () => {
    await ensureBuilt();
    installDeclarations();
  }, 240_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  for (const mode of MODES) {
    it(`compile under moduleResolution ${mode.name}, strict with exactOptionalPropertyTypes, with exactly the expected errors`, () => {
      const found = compile(mode);
      const expected = expectedErrors();
      const unexpected = [...found].filter(([where]) => !expected.has(where)).map(([where, list]) => `${where} ${list.map(describeError).join('; ')}`);
      expect(unexpected).toEqual([]);
      for (const [where, code] of expected) expect(found.get(where)?.map((each) => each.code), where).toEqual([code]);
    });
  }
});
