import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// What the README's Layout promises: folders that import one way, small files, short functions.
const root = fileURLToPath(new URL('..', import.meta.url));
/** src/'s folders from the bottom up: each may import only from those before it. */
const SRC_LAYERS = ['shared', 'http', 'snapshot', 'evaluation', 'storage', 'platform', 'events', 'reads', 'context', 'machine', 'stream'];
const SOURCE_ROOTS = ['src', 'adapters', 'react', 'vue', 'svelte', 'openfeature', 'devtools', 'testing', 'reference-server', 'cli'];
/** The React console's components are JSX trees, kept whole where splitting would only scatter one screen. */
const LONG_FUNCTIONS_KEPT = new Set(['reference-server/console/flag-card.tsx:FlagCard', 'reference-server/console/use-admin-state.ts:useAdminState']);

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [join(dir, entry.name)] : [],
  );
const files = SOURCE_ROOTS.flatMap(sourceFiles);

/** Each relative import of `file`, as the folder (relative to the root) of the file it names. */
const importedFolders = (file: string): string[] =>
  [...readFileSync(join(root, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(([, spec]) =>
    relative(root, dirname(resolve(root, dirname(file), `${spec!}.ts`))),
  );

describe('layout', () => {
  it("src/: a folder imports only src/shared and the folders below it, in the README's order", () => {
    const upward: string[] = [];
    for (const file of files.filter((name) => /^src\/[^/]+\//.test(name))) {
      const layer = SRC_LAYERS.indexOf(file.split('/')[1]!);
      expect(layer, `${file} is in a folder the layout does not list`).toBeGreaterThanOrEqual(0);
      for (const folder of importedFolders(file)) {
        const target = folder === 'src' ? Infinity : folder.startsWith('src/') ? SRC_LAYERS.indexOf(folder.split('/')[1]!) : -1;
        if (target > layer) upward.push(`${file} → ${folder}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("reference-server/: its folders never import its root", () => {
    const upward = files
      .filter((file) => /^reference-server\/[^/]+\//.test(file))
      .flatMap((file) => importedFolders(file).filter((folder) => folder === 'reference-server').map(() => file));
    expect(upward).toEqual([]);
  });

  it('no source file over 250 lines, no function over 80 (the console components listed aside)', () => {
    const long: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      if (text.split('\n').length > 250) long.push(`${file}: ${text.split('\n').length} lines`);
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const lines = source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          const name = node.name?.getText() ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : '(anonymous)');
          if (lines > 80 && !LONG_FUNCTIONS_KEPT.has(`${file}:${name}`)) long.push(`${file}: ${name}, ${lines} lines`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });
});
