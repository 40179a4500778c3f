/**
 * The package's declarations in strict apps (issue 23): sample apps compiled by the TypeScript
 * compiler against the built `.d.ts` files as npm ships them, under each module resolution an
 * app may use, with `strict` and `exactOptionalPropertyTypes`. `skipLibCheck`, as apps have it:
 * checking React's and Node's own declarations four times would take most of 20 s. dist/ is
 * built first where it is missing or stale (test/helpers/built-dist.ts).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/built-dist';
import { compile, describeError, installDeclarations, MODES } from './compile-apps';
import { expectedErrors, SAMPLE_APPS } from './sample-apps';

let home: string;

describe('the declarations in strict apps', () => {
  beforeAll(async () => {
    await ensureBuilt();
    home = installDeclarations();
  }, 240_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  for (const mode of MODES) {
    it(`compile under moduleResolution ${mode.name}, strict with exactOptionalPropertyTypes, with exactly the expected errors`, () => {
      const found = compile(home, mode, SAMPLE_APPS);
      const expected = expectedErrors(SAMPLE_APPS);
      const unexpected = [...found].filter(([where]) => !expected.has(where)).map(([where, list]) => `${where} ${list.map(describeError).join('; ')}`);
      expect(unexpected).toEqual([]);
      for (const [where, code] of expected) expect(found.get(where)?.map((each) => each.code), where).toEqual([code]);
    });
  }
});
