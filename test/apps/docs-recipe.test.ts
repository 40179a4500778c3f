import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './app-process';

// docs/react.md's "Server rendering" and the sections after it print the apps' files, each block
// starting with its path as a comment (`// app/layout.tsx — …`). They are the files apps.test.ts
// builds and runs: the docs cannot show a recipe that does not build, flashes or leaks.
const doc = readFileSync(join(root, 'docs/react.md'), 'utf8').split('\n## Server rendering\n')[1]!;
const blocks = [...doc.matchAll(/^```tsx?\n\/\/ ([\w./-]+)[^\n]*\n[\s\S]*?^```$/gm)].map(([block, path]) => ({ path: path!, code: block.replace(/^```tsx?\n/, '').replace(/```$/, '') }));
const appOf = (path: string) => ['next-app', 'vite-app'].find((app) => existsSync(join(root, 'test/apps', app, path)));

describe('docs/react.md: the Next.js and Vite recipes', () => {
  it('print every source file of the two apps', () => {
    expect(blocks.map(({ path }) => `${appOf(path)}/${path}`).sort()).toEqual(
      [
        'next-app/app/api/flag/route.ts',
        'next-app/app/checkout-button.tsx',
        'next-app/app/flags-provider.tsx',
        'next-app/app/layout.tsx',
        'next-app/app/page.tsx',
        'next-app/lib/flags-server.ts',
        'next-app/lib/visitor.ts',
        'vite-app/src/main.tsx',
      ].sort(),
    );
  });

  it.each(blocks)('$path is printed exactly as the suite builds it', ({ path, code }) => {
    expect(code).toBe(readFileSync(join(root, 'test/apps', appOf(path)!, path), 'utf8'));
  });
});
