/**
 * Compiling sample apps against the package's declarations as npm ships them: under each
 * module resolution an app may use, with `strict` and `exactOptionalPropertyTypes`.
 * `skipLibCheck`, as apps have it. Used by strict-apps.test.ts and typed-flags.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/built-dist';
import { packedPaths } from '../runtimes/metro-layout';
import { expectedErrors } from './sample-apps';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The packages the declarations (and the samples) import, linked from the repository's. */
const LINKED = ['react', 'vue', '@vue', '@types', '@openfeature', 'ws', 'ioredis', 'pg'];

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

/**
 * A new `<tmp>/node_modules/flagplane` with what `npm pack` ships of the declarations and
 * package.json files; returns `<tmp>`, where `compile` writes its apps.
 */
function installDeclarations(): string {
  const home = mkdtempSync(join(tmpdir(), 'flagplane-types-'));
  const dir = join(home, 'node_modules', 'flagplane');
  const shipped = packedPaths().filter((path) => /\.d\.c?ts$|(^|\/)package\.json$/.test(path));
  for (const path of shipped) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    copyFileSync(join(root, path), join(dir, path));
  }
  for (const name of LINKED) symlinkSync(join(root, 'node_modules', name), join(home, 'node_modules', name), 'dir');
  return home;
}

/** Compiles `apps` (file name → source) in a folder of `home` of their own: the diagnostics by `file:line`. */
function compile(home: string, mode: (typeof MODES)[number], apps: Record<string, string>): Map<string, ts.Diagnostic[]> {
  const app = join(home, `${Object.keys(apps)[0]!.replace(/\W+/g, '-')}-${mode.name.replace(/\W+/g, '-')}`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: mode.type }));
  const files = Object.entries(apps).map(([name, source]) => {
    // ESM apps under node16 import their own files with the extension they will have.
    const text = mode.type === 'module' && mode.name !== 'bundler' ? source.replace(/from '\.\/([\w-]+)'/g, "from './$1.js'") : source;
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


/**
 * A suite compiling `apps` in one program under each mode: each `// wrong: TSnnnn` line must
 * fail with that error, and no other line may fail. dist/ is built first where it is stale.
 */
export function describeApps(title: string, apps: Record<string, string>): void {
  let home: string;
  describe(title, () => {
    beforeAll(async () => {
      await ensureBuilt();
      home = installDeclarations();
    }, 240_000);
    afterAll(() => rmSync(home, { recursive: true, force: true }));

    for (const mode of MODES) {
      it(`compile under moduleResolution ${mode.name}, strict with exactOptionalPropertyTypes, with exactly the expected errors`, () => {
        const found = compile(home, mode, apps);
        const expected = expectedErrors(apps);
        const unexpected = [...found].filter(([where]) => !expected.has(where)).map(([where, list]) => `${where} ${list.map(describeError).join('; ')}`);
        expect(unexpected).toEqual([]);
        for (const [where, code] of expected) expect(found.get(where)?.map((each) => each.code), where).toEqual([code]);
      });
    }
  });
}
