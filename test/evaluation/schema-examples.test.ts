import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';

// The published example snapshots (docs/schema/examples) must all be evaluable.
const dir = fileURLToPath(new URL('../../docs/schema/examples', import.meta.url));
const examples = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8')) as FlagSnapshot] as const);

describe('docs/schema/examples', () => {
  it('exist', () => expect(examples.length).toBeGreaterThan(0));

  it.each(examples)('every flag of %s evaluates without PARSE_ERROR', (_file, snapshot) => {
    const contexts = [{}, { attributes: { appVersion: '4.0.0', email: 'a@example.com', country: 'FR' }, segmentIds: ['beta-testers'] }];
    for (const [key, flag] of Object.entries(snapshot.flags)) {
      for (const context of contexts) {
        for (const bucketingKey of ['user-1', undefined]) {
          expect(evaluateFlag(flag, context, bucketingKey), key).toMatchObject({ kind: 'served' });
        }
      }
    }
  });
});
