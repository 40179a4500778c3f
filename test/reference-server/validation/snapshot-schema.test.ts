import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FlagSnapshot } from '../../../src/snapshot/snapshot-types';
import { validateSchema } from '../../../reference-server/validation/json-schema';

const root = resolve(import.meta.dirname, '../../..');
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const schema = readJson(join(root, 'docs/schema/flag-snapshot.schema.json')) as Record<string, unknown>;
const validate = (root: Record<string, unknown>, value: unknown) => validateSchema(root, root, value);
const examplesDir = join(root, 'docs/schema/examples');
const examples = readdirSync(examplesDir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => [name, readJson(join(examplesDir, name))] as const);
const demo = readJson(join(root, 'reference-server/demo.json')) as { environments: Array<{ id: string; snapshot: unknown }> };
const snapshots: Array<readonly [string, unknown]> = [
  ...examples,
  ...demo.environments.map((env) => [`demo.json ${env.id}`, env.snapshot] as const),
];

/**
 * What the schema cannot say (protocol.md §2): weights sum to 100000, indexes in range, rule
 * ids unique, one variation key per variation.
 */
function semanticErrors(snapshot: FlagSnapshot): string[] {
  const errors: string[] = [];
  for (const [key, flag] of Object.entries(snapshot.flags)) {
    const inRange = (index: number, where: string) => {
      if (index >= flag.variations.length) errors.push(`${key}: ${where} variation ${index} is out of range`);
    };
    const checkServe = (serve: FlagSnapshot['flags'][string]['fallthrough'], where: string) => {
      if ('variation' in serve) return inRange(serve.variation, where);
      serve.rollout.forEach((slice) => inRange(slice.variation, where));
      const total = serve.rollout.reduce((sum, slice) => sum + slice.weight, 0);
      if (total !== 100_000) errors.push(`${key}: ${where} weights sum to ${total}`);
    };
    inRange(flag.offVariation, 'offVariation');
    checkServe(flag.fallthrough, 'fallthrough');
    flag.rules.forEach((rule) => checkServe(rule.serve, `rule ${rule.id}`));
    const ids = flag.rules.map((rule) => rule.id);
    if (new Set(ids).size !== ids.length) errors.push(`${key}: duplicate rule ids`);
    if (flag.variationKeys && flag.variationKeys.length !== flag.variations.length) errors.push(`${key}: not one variation key per variation`);
  }
  return errors;
}

describe('docs/schema/flag-snapshot.schema.json', () => {
  it('has three or more examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it.each(snapshots)('%s conforms to the schema and to the rules it cannot state', (_name, snapshot) => {
    expect(validate(schema, snapshot)).toEqual([]);
    expect(semanticErrors(snapshot as FlagSnapshot)).toEqual([]);
  });

  const base = examples[0]![1] as FlagSnapshot;
  const firstFlag = Object.keys(base.flags)[0]!;
  const isRule = (values: unknown[] | undefined) => ({ id: 'r', conditions: [{ kind: 'attribute', attribute: 'a', op: 'is', values }], serve: { variation: 0 } });
  const keysFor = (s: any): string[] => s.flags[firstFlag].variations.map((_: unknown, i: number) => `v${i}`);
  const mutations: Array<[string, (s: any) => void]> = [
    ['schemaVersion 2', (s) => (s.schemaVersion = 2)],
    ['a negative version', (s) => (s.version = -1)],
    ['a fractional version', (s) => (s.version = 1.5)],
    ['no environmentId', (s) => delete s.environmentId],
    ['an unknown top-level member', (s) => (s.segments = [])],
    ['flags as an array', (s) => (s.flags = [])],
    ['a flag without salt', (s) => delete s.flags[firstFlag].salt],
    ['a string clientSide', (s) => (s.flags[firstFlag].clientSide = 'yes')],
    ['no variations', (s) => (s.flags[firstFlag].variations = [])],
    ['a fallthrough with both variation and rollout', (s) => (s.flags[firstFlag].fallthrough = { variation: 0, rollout: [] })],
    ['an empty rollout', (s) => (s.flags[firstFlag].fallthrough = { rollout: [] })],
    ['a weight over 100000', (s) => (s.flags[firstFlag].fallthrough = { rollout: [{ variation: 0, weight: 100001 }] })],
    ['a regex operator', (s) => (s.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'attribute', attribute: 'a', op: 'matches', values: ['.*'] }], serve: { variation: 0 } }])],
    ['an attribute condition without values', (s) => (s.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'attribute', attribute: 'a', op: 'in' }], serve: { variation: 0 } }])],
    ['exists with values', (s) => (s.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'attribute', attribute: 'a', op: 'exists', values: ['x'] }], serve: { variation: 0 } }])],
    ['a boolean in values', (s) => (s.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'attribute', attribute: 'a', op: 'in', values: [true] }], serve: { variation: 0 } }])],
    ['a segment condition with an attribute', (s) => (s.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'segment', segmentIds: ['x'], attribute: 'a' }], serve: { variation: 0 } }])],
    ['an unknown condition kind', (s) => (s.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'regex' }], serve: { variation: 0 } }])],
    ['is with a string "true"', (s) => (s.flags[firstFlag].rules = [isRule(['true'])])],
    ['is with a number', (s) => (s.flags[firstFlag].rules = [isRule([1])])],
    ['is with no values', (s) => (s.flags[firstFlag].rules = [isRule([])])],
    ['is without values', (s) => (s.flags[firstFlag].rules = [isRule(undefined)])],
    ['a boolean among the values of startsWith', (s) => (s.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'attribute', attribute: 'a', op: 'startsWith', values: ['x', false] }], serve: { variation: 0 } }])],
    ['variationKeys that is not an array', (s) => (s.flags[firstFlag].variationKeys = 'control')],
    ['an empty variation key', (s) => (s.flags[firstFlag].variationKeys = keysFor(s).map((key: string, i: number) => (i === 0 ? '' : key)))],
    ['a variation key that is a number', (s) => (s.flags[firstFlag].variationKeys = keysFor(s).map((key: string, i: number) => (i === 0 ? 0 : key)))],
    ['a variation key of 129 characters', (s) => (s.flags[firstFlag].variationKeys = keysFor(s).map((key: string, i: number) => (i === 0 ? 'k'.repeat(129) : key)))],
    ['two equal variation keys', (s) => (s.flags[firstFlag].variationKeys = keysFor(s).map(() => 'same'))],
    ['metadata that is an array', (s) => (s.flags[firstFlag].metadata = ['owner'])],
    ['a nested metadata value', (s) => (s.flags[firstFlag].metadata = { owner: { team: 'payments' } })],
    ['a metadata value that is an array', (s) => (s.flags[firstFlag].metadata = { tags: ['a'] })],
    ['a null metadata value', (s) => (s.flags[firstFlag].metadata = { owner: null })],
    ['a metadata string of 1025 characters', (s) => (s.flags[firstFlag].metadata = { note: 'n'.repeat(1025) })],
    ['an empty metadata name', (s) => (s.flags[firstFlag].metadata = { '': 'x' })],
    ['a metadata name of 129 characters', (s) => (s.flags[firstFlag].metadata = { ['m'.repeat(129)]: 'x' })],
    ['65 metadata entries', (s) => (s.flags[firstFlag].metadata = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`m${i}`, i])))],
  ];
  it.each(mutations)('rejects %s', (_name, mutate) => {
    const snapshot = structuredClone(base);
    mutate(snapshot);
    expect(validate(schema, snapshot)).not.toEqual([]);
  });

  it('accepts an exists condition without values and an empty rule list', () => {
    const snapshot = structuredClone(base) as any;
    snapshot.flags[firstFlag].rules = [{ id: 'r', conditions: [{ kind: 'attribute', attribute: 'a', op: 'exists', negate: true }], serve: { variation: 0 } }];
    expect(validate(schema, snapshot)).toEqual([]);
    snapshot.flags[firstFlag].rules = [];
    expect(validate(schema, snapshot)).toEqual([]);
  });

  it('accepts is with booleans, variation keys and flat metadata up to their bounds', () => {
    const snapshot = structuredClone(base) as any;
    const flag = snapshot.flags[firstFlag];
    flag.rules = [isRule([true, false])];
    // Lengths are counted in characters (code points): 128 emoji are 256 UTF-16 units.
    flag.variationKeys = flag.variations.map((_: unknown, i: number) => (i === 0 ? '🚩'.repeat(128) : `v${i}`));
    flag.metadata = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [i === 0 ? 'm'.repeat(128) : `m${i}`, [true, 1.5, 'x'.repeat(1024)][i % 3]]));
    expect(validate(schema, snapshot)).toEqual([]);
    flag.metadata = {};
    expect(validate(schema, snapshot)).toEqual([]);
  });

  it('the semantic check catches variation keys that are not one per variation', () => {
    const snapshot = structuredClone(base) as any;
    snapshot.flags[firstFlag].variationKeys = [...keysFor(snapshot), 'extra'];
    expect(validate(schema, snapshot)).toEqual([]);
    expect(semanticErrors(snapshot)).toEqual([`${firstFlag}: not one variation key per variation`]);
  });

  it('the semantic check catches bad weights, indexes and duplicate rule ids', () => {
    const snapshot = structuredClone(base) as any;
    snapshot.flags[firstFlag].fallthrough = { rollout: [{ variation: 0, weight: 50_000 }, { variation: 99, weight: 40_000 }] };
    snapshot.flags[firstFlag].rules = [
      { id: 'a', conditions: [], serve: { variation: 0 } },
      { id: 'a', conditions: [], serve: { variation: 0 } },
    ];
    expect(semanticErrors(snapshot)).toHaveLength(3);
  });
});
