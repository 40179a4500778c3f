/**
 * Typed flags (issue 25) in strict apps: the module `flagplane types` writes, and apps typed
 * by it (typed-flag-apps.ts), compiled against the built declarations as strict-apps.test.ts
 * compiles its apps, under each module resolution.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/built-dist';
import { compile, describeError, installDeclarations, MODES } from './compile-apps';
import { expectedErrors } from './sample-apps';
import { TYPED_FLAG_APPS } from './typed-flag-apps';

let home: string;

describe('apps typed by a flags type', () => {
  beforeAll(async () => {
    await ensureBuilt();
    home = installDeclarations();
  }, 240_000);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  for (const mode of MODES) {
    it(`compile under moduleResolution ${mode.name}, strict with exactOptionalPropertyTypes: a wrong key or type fails, and nothing else`, () => {
      const found = compile(home, mode, TYPED_FLAG_APPS);
      const expected = expectedErrors(TYPED_FLAG_APPS);
      const unexpected = [...found].filter(([where]) => !expected.has(where)).map(([where, list]) => `${where} ${list.map(describeError).join('; ')}`);
      expect(unexpected).toEqual([]);
      for (const [where, code] of expected) expect(found.get(where)?.map((each) => each.code), where).toEqual([code]);
    });
  }
});
