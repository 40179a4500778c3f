import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/testing.md prints two complete test files, each after "save as `<name>`". They are
// the files of examples/, which the suite runs: the docs cannot show an example that fails.
const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
const doc = read('../../docs/testing.md');
const examples = [...doc.matchAll(/save as `([\w.-]+)`[^\n]*\n(?:[^\n]+\n)*?\n```tsx?\n([\s\S]*?)^```$/gim)].map(([, name, code]) => ({ name: name!, code: code! }));

describe('docs/testing.md examples', () => {
  it('are the two files of test/testing/examples/', () => {
    expect(examples.map(({ name }) => name)).toEqual(['checkout.test.ts', 'checkout-button.test.tsx']);
  });

  it.each(examples)('$name is printed exactly as the suite runs it', ({ name, code }) => {
    expect(code).toBe(read(`./examples/${name}`));
  });
});
