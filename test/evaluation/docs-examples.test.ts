import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { Condition } from '../../src/snapshot/snapshot-types';
import { makeFlag, rule } from './flags';

// docs/evaluation.md promises that every operator example matches its sample context.
const doc = readFileSync(fileURLToPath(new URL('../../docs/evaluation.md', import.meta.url)), 'utf8');
const section = doc.slice(doc.indexOf('### Operators'), doc.indexOf('### Segment conditions'));
const context = JSON.parse(/`(\{ "attributes": .*\})`/.exec(section)![1]!) as { attributes: Record<string, string | number | boolean> };
const examples = [...section.matchAll(/^(\{ "kind": "attribute".*\})$/gm)].map((m) => m[1]!);

describe('docs/evaluation.md operator examples', () => {
  it('cover every operator', () => {
    const ops = new Set(examples.map((e) => (JSON.parse(e) as { op: string }).op));
    const all = ['in', 'contains', 'startsWith', 'endsWith', 'lt', 'lte', 'gt', 'gte', 'semverEq', 'semverLt', 'semverGt', 'before', 'after', 'exists', 'is'];
    expect([...ops].sort()).toEqual(all.sort());
  });

  it.each(examples)('%s matches the sample context', (json) => {
    const flag = makeFlag([rule('doc', [JSON.parse(json) as Condition])]);
    expect(evaluateFlag(flag, context, 'user-1')).toMatchObject({ reason: 'TARGETING_MATCH' });
  });
});
