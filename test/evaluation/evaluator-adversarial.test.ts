import { afterEach, describe, expect, it, vi } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import { bucketFor } from '../../src/evaluation/bucketing';
import { compareSemver } from '../../src/evaluation/semver';
import { toEpochMs } from '../../src/evaluation/dates';
import { createFlagValues } from '../../src/reads/flag-values';
import { checkSnapshot } from '../../src/snapshot/snapshot-parse';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { harness } from '../helpers/client-harness';
import { bad, flagWith, makeFlag } from './flags';

// Adversarial review of the local evaluator against docs/evaluation.md and docs/protocol.md §2.
// Tests marked `it.fails` demonstrate a bug: each quotes the sentence it contradicts.

const served = (flag: unknown, context: unknown, key: string | undefined = 'u') =>
  evaluateFlag(bad<Flag>(flag), bad<EvaluationContext>(context), key);

/** Whether the single rule of a flag holding `condition` matches (the flag must be well-formed). */
function matches(condition: unknown, context: unknown): boolean {
  const result = served(flagWith(bad(condition)), context);
  expect(result.kind).toBe('served');
  return result.kind === 'served' && result.reason === 'TARGETING_MATCH';
}

/** A fixed-seed MurmurHash3 x86 32 written independently (Buffer for UTF-8, 16-bit split multiply). */
function referenceMurmur3(input: string): number {
  const bytes = Buffer.from(input, 'utf8');
  const mul = (a: number, b: number) => ((((a & 0xffff) * b) >>> 0) + ((((a >>> 16) * b) & 0xffff) << 16)) >>> 0;
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  let h = 0;
  const blocks = bytes.length - (bytes.length % 4);
  for (let i = 0; i < blocks; i += 4) {
    let k = bytes.readUInt32LE(i);
    k = mul(rotl(mul(k, 0xcc9e2d51), 15), 0x1b873593);
    h = (mul(rotl((h ^ k) >>> 0, 13), 5) + 0xe6546b64) >>> 0;
  }
  let k = 0;
  for (let i = bytes.length - 1; i >= blocks; i--) k = ((k << 8) | bytes[i]!) >>> 0;
  if (bytes.length % 4) h = (h ^ mul(rotl(mul(k, 0xcc9e2d51), 15), 0x1b873593)) >>> 0;
  h = (h ^ bytes.length) >>> 0;
  h = mul((h ^ (h >>> 16)) >>> 0, 0x85ebca6b);
  h = mul((h ^ (h >>> 13)) >>> 0, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

describe('segment conditions compare ids by exact string equality', () => {
  // Was a bug: conditions.ts uses Array.prototype.includes, so non-string ids of the same
  // value (numbers, null, booleans) on both sides match each other.
  // docs/evaluation.md: "Holds when `context.segmentIds` contains any of the listed ids
  // (exact string equality)." and "entries of `values` or `segmentIds` of an unexpected
  // type simply never match".
  it('a non-string entry of segmentIds never matches, even the same value in the context', () => {
    for (const id of [1, null, true, 0]) {
      expect(matches({ kind: 'segment', segmentIds: [id] }, { segmentIds: [id] })).toBe(false);
    }
  });

  it('an empty segmentIds list holds for no context, so negated it holds for every context', () => {
    for (const context of [{}, { segmentIds: [] }, { segmentIds: ['beta'] }]) {
      expect(matches({ kind: 'segment', segmentIds: [] }, context)).toBe(false);
      expect(matches({ kind: 'segment', segmentIds: [], negate: true }, context)).toBe(true);
    }
  });

  it('a string id never matches a number of the same spelling, either way', () => {
    expect(matches({ kind: 'segment', segmentIds: ['1'] }, { segmentIds: [1] })).toBe(false);
    expect(matches({ kind: 'segment', segmentIds: [1] }, { segmentIds: ['1'] })).toBe(false);
  });
});

describe('operator names are matched exactly', () => {
  // Was a bug: conditions.ts checks `own(OPERATORS, op)` and reads `OPERATORS[op]`, both of
  // which convert `op` to a string, so `"op": ["exists"]` (valid JSON) runs `exists`.
  // docs/evaluation.md: "an attribute condition whose `op` is not one of the fourteen
  // above, is **false** — and stays false under `negate`. The flag is not malformed"
  // and "Operator names are matched exactly and only against the evaluator's own table".
  it('an op that is an array holding an operator name is unknown: false, even negated', () => {
    // Negated `exists` on an absent attribute would be true; an unknown op must stay false.
    expect(served(flagWith(bad({ kind: 'attribute', attribute: 'a', op: ['exists'], negate: true })), { attributes: {} })).toEqual({
      kind: 'served',
      value: 'fallthrough',
      variation: 0,
      reason: 'DEFAULT',
    });
    expect(served(flagWith(bad({ kind: 'attribute', attribute: 'a', op: ['in'], values: ['x'] })), { attributes: { a: 'x' } })).toMatchObject({
      reason: 'DEFAULT',
    });
  });

  it('an op that is not a string at all (number, null, object) is unknown: false, even negated', () => {
    for (const op of [1, null, {}, true]) {
      for (const negate of [false, true]) {
        expect(matches({ kind: 'attribute', attribute: 'a', op, values: ['x'], negate }, { attributes: { a: 'x' } })).toBe(false);
      }
    }
  });
});

describe('attributes that are not a JSON object', () => {
  // Was a bug (minor): conditions.ts accepts any non-null object as `attributes`, arrays
  // included, so an array's own `length` and indexes become attributes.
  // protocol.md §2: EvaluationContext `attributes` is an object; docs/evaluation.md: "a
  // missing or non-object `attributes` ... are all read as 'nothing there'".
  it('an array in place of attributes has no attributes: not even `length` or `0`', () => {
    expect(matches({ kind: 'attribute', attribute: 'length', op: 'exists' }, { attributes: [] })).toBe(false);
    expect(matches({ kind: 'attribute', attribute: '0', op: 'in', values: ['x'] }, { attributes: ['x'] })).toBe(false);
  });
});

describe('numbers at the edges', () => {
  it('NaN is a number for which every comparison is false (negate then inverts)', () => {
    for (const op of ['in', 'lt', 'lte', 'gt', 'gte']) {
      expect(matches({ kind: 'attribute', attribute: 'n', op, values: [0, 1, -1] }, { attributes: { n: NaN } })).toBe(false);
      expect(matches({ kind: 'attribute', attribute: 'n', op, values: [0], negate: true }, { attributes: { n: NaN } })).toBe(true);
    }
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'exists' }, { attributes: { n: NaN } })).toBe(true);
  });

  it('Infinity compares as a number; -0 is `===` 0 for `in`', () => {
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'gt', values: [1e308] }, { attributes: { n: Infinity } })).toBe(true);
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'lt', values: [-1e308] }, { attributes: { n: -Infinity } })).toBe(true);
    expect(matches({ kind: 'attribute', attribute: 'n', op: 'in', values: [0] }, { attributes: { n: -0 } })).toBe(true);
  });

  it('non-finite numbers are not dates, on either side', () => {
    for (const n of [NaN, Infinity, -Infinity]) {
      expect(matches({ kind: 'attribute', attribute: 'd', op: 'before', values: ['2024-01-01'] }, { attributes: { d: n } })).toBe(false);
      expect(matches({ kind: 'attribute', attribute: 'd', op: 'after', values: ['2024-01-01'] }, { attributes: { d: n } })).toBe(false);
    }
  });
});

describe('strings: code units, case-sensitive, no normalisation', () => {
  it('composed and decomposed forms are different strings', () => {
    const composed = 'caf\u00e9';
    const decomposed = 'cafe\u0301';
    expect(matches({ kind: 'attribute', attribute: 's', op: 'in', values: [composed] }, { attributes: { s: decomposed } })).toBe(false);
    expect(matches({ kind: 'attribute', attribute: 's', op: 'endsWith', values: ['\u00e9'] }, { attributes: { s: decomposed } })).toBe(false);
    expect(matches({ kind: 'attribute', attribute: 's', op: 'startsWith', values: ['cafe'] }, { attributes: { s: decomposed } })).toBe(true);
  });

  it('no case folding, including the non-ASCII cases that toLowerCase/localeCompare would fold', () => {
    for (const [attr, value] of [['STRASSE', 'straße'], ['İstanbul', 'istanbul'], ['ΣΑΣ', 'σας'], ['ǅ', 'ǆ']]) {
      expect(matches({ kind: 'attribute', attribute: 's', op: 'in', values: [value] }, { attributes: { s: attr } })).toBe(false);
      expect(matches({ kind: 'attribute', attribute: 's', op: 'contains', values: [value] }, { attributes: { s: attr } })).toBe(false);
    }
  });

  it('a surrogate pair is two code units: half of it is a substring', () => {
    expect(matches({ kind: 'attribute', attribute: 's', op: 'startsWith', values: ['\ud83d'] }, { attributes: { s: '😀' } })).toBe(true);
    expect(matches({ kind: 'attribute', attribute: 's', op: 'in', values: ['\ud83d'] }, { attributes: { s: '😀' } })).toBe(false);
  });
});

describe('semver corners not in the precedence list', () => {
  it.each([
    ['1.0.0-alpha', '1.0.0-alpha.0', -1], // a longer list wins when shared ids are equal
    ['1.0.0-0a', '1.0.0-0', 1], // "0a" is alphanumeric (a leading zero is allowed there)
    ['1.0.0-alpha.beta', '1.0.0-alpha.1.2', 1], // alphanumeric beats numeric before length counts
    ['1.0.0--', '1.0.0-0', 1], // "-" is an alphanumeric identifier
    ['1.0.0-A', '1.0.0-a', -1], // ASCII order, uppercase first
    ['v1.0.0+x.y', '1.0.0', 0], // v-prefix plus build metadata
    ['1.0.0-rc.1+build.5', 'v1.0.0-rc.1', 0],
  ])('%s vs %s → %i', (a, b, sign) => {
    expect(Math.sign(compareSemver(a, b))).toBe(sign);
    expect(Math.sign(compareSemver(b, a))).toBe(-sign || 0);
  });

  it.each(['1.0.0-x.00', '00.0.0', '1.0.0+x_y', '1.2.3\n', '\n1.2.3', '1.0.0-\u0663', 'v 1.2.3', '1.2.3-rc.1\u0000'])('%j is invalid', (v) => {
    expect(compareSemver(v, '1.2.3')).toBeNaN();
  });
});

describe('dates: the Gregorian calendar and the edges of the profile', () => {
  it.each([
    ['2000-02-29', Date.UTC(2000, 1, 29)], // divisible by 400: leap
    ['0400-02-29', new Date(0).setUTCFullYear(400, 1, 29)],
    ['0000-02-29', new Date(0).setUTCFullYear(0, 1, 29)], // proleptic year 0 is a leap year
    ['2024-01-01T00:00:00-00:00', Date.UTC(2024, 0, 1)],
    ['2024-01-01T00:00:00.1234567890Z', Date.UTC(2024, 0, 1, 0, 0, 0, 123)],
    ['9999-12-31T23:59:59-23:59', Date.UTC(10000, 0, 1, 23, 58, 59)], // the offset may leave year 9999
    ['0000-01-01T00:00:00+23:59', new Date(0).setUTCFullYear(-1, 11, 31) + 60_000],
  ])('%s', (input, want) => {
    expect(toEpochMs(input)).toBe(want);
  });

  it.each(['1900-02-29', '2100-02-29', '0100-02-29', '2024-06-31', '2024-01-01Z', '2024-01-01T00:00:00.000Z\n', '2024-01-01T00:00:00,5Z', '２０２４-01-01'])(
    '%j is not a date',
    (input) => {
      expect(toEpochMs(input)).toBeNaN();
    },
  );
});

describe('bucketing at exact boundaries', () => {
  // Found by search; each is checked against an independent MurmurHash3 below.
  const BUCKET_99999 = 'user-1238';
  const BUCKET_0 = 'user-23056';

  it('the keys really land in buckets 99999 and 0 (independent hash)', () => {
    expect(referenceMurmur3(`edge.${BUCKET_99999}`) % 100000).toBe(99999);
    expect(referenceMurmur3(`edge.${BUCKET_0}`) % 100000).toBe(0);
    expect(bucketFor('edge', BUCKET_99999)).toBe(99999);
    expect(bucketFor('edge', BUCKET_0)).toBe(0);
  });

  const rollout = (weights: number[]) =>
    makeFlag([], { salt: 'edge', fallthrough: { rollout: weights.map((weight, variation) => ({ variation, weight })) } });

  it('bucket 99999 is served by the last slice of non-zero weight, even of weight 1', () => {
    expect(evaluateFlag(rollout([99999, 1]), {}, BUCKET_99999)).toMatchObject({ variation: 1, reason: 'SPLIT' });
    expect(evaluateFlag(rollout([99999, 1, 0]), {}, BUCKET_99999)).toMatchObject({ variation: 1 });
    expect(evaluateFlag(rollout([100000, 0]), {}, BUCKET_99999)).toMatchObject({ variation: 0 });
  });

  it('a real key in bucket 0 is served by the first slice of non-zero weight, like no key', () => {
    expect(evaluateFlag(rollout([1, 99999]), {}, BUCKET_0)).toMatchObject({ variation: 0, reason: 'SPLIT' });
    expect(evaluateFlag(rollout([0, 1, 99999]), {}, BUCKET_0)).toMatchObject({ variation: 1 });
    expect(evaluateFlag(rollout([0, 0, 100000]), {}, BUCKET_0)).toMatchObject({ variation: 2 });
  });

  it('a single slice of 100000 serves every key, with reason SPLIT', () => {
    const flag = rollout([100000]);
    for (const key of [BUCKET_0, BUCKET_99999, '', undefined, 'x'.repeat(10_000)]) {
      expect(evaluateFlag(flag, {}, key)).toEqual({ kind: 'served', value: 'fallthrough', variation: 0, reason: 'SPLIT' });
    }
  });

  it('the salt is used as given: empty, dotted or non-ASCII', () => {
    for (const salt of ['', 'a.b', 'café', '\ud800']) {
      expect(bucketFor(salt, 'k')).toBe(referenceMurmur3(`${salt}.k`) % 100000);
    }
  });
});

describe('the client buckets by userId, else the anonymous id (test/fixtures/bucketing.json)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Fixture: "new-checkout.anon-7f3c2a9e-1b4d-4c8a-9e2f-5d6b7a8c9d0e" → bucket 6798,
  // "new-checkout." → bucket 35260, "new-checkout.user-42" → bucket 4125.
  const ANON = 'anon-7f3c2a9e-1b4d-4c8a-9e2f-5d6b7a8c9d0e';
  const edge = (bucket: number): Flag =>
    makeFlag([], {
      salt: 'new-checkout',
      variations: ['below', 'at-or-above'],
      offVariation: 0,
      fallthrough: { rollout: [{ variation: 0, weight: bucket }, { variation: 1, weight: 100000 - bucket }] },
    });
  const snapshot: FlagSnapshot = {
    schemaVersion: 1,
    version: 1,
    environmentId: 'production',
    flags: { anon: edge(6798), empty: edge(35260), user: edge(4125) },
  };

  it('without a userId the anonymous id is the key; with userId "" the empty string is', async () => {
    vi.useFakeTimers();
    const { client } = harness(() => 'hang', { bootstrap: snapshot, anonymousId: ANON });
    // Each flag's first slice ends exactly at the fixture bucket, so the key in that
    // bucket is served the second slice, and any other key very likely is not.
    expect(client.getDetails('anon')).toMatchObject({ value: 'at-or-above', reason: 'SPLIT' });
    client.setContext({ userId: '' });
    expect(client.getDetails('empty')).toMatchObject({ value: 'at-or-above', reason: 'SPLIT' });
    client.setContext({ userId: 'user-42' });
    expect(client.getDetails('user')).toMatchObject({ value: 'at-or-above', reason: 'SPLIT' });
    // One bucket lower: the same keys fall in the first slice.
    expect(evaluateFlag(edge(6799), {}, ANON)).toMatchObject({ value: 'below' });
    expect(evaluateFlag(edge(35261), {}, '')).toMatchObject({ value: 'below' });
    await client.close();
  });
});

describe('the flag values (flag-values.ts) never throw, whatever the snapshot holds', () => {
  const deepSnapshot = (version: number, depth: number): FlagSnapshot => {
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    return JSON.parse(
      `{"schemaVersion":1,"version":${version},"environmentId":"e","flags":{"deep":{"on":true,"variations":[${deep}],"offVariation":0,"rules":[],"fallthrough":{"variation":0},"salt":"s","clientSide":true},"plain":{"on":true,"variations":[true],"offVariation":0,"rules":[],"fallthrough":{"variation":0},"salt":"s","clientSide":true}}}`,
    ) as FlagSnapshot;
  };

  it('evaluateFlag itself serves a deeply nested variation without walking it', () => {
    const snapshot = deepSnapshot(1, 100_000);
    expect(evaluateFlag(snapshot.flags.deep!, {}, 'u')).toMatchObject({ kind: 'served', reason: 'DEFAULT', variation: 0 });
  });

  // Was a bug: flag-values.ts shares deep-equal values with the recursive jsonEqual (json-equal.ts),
  // which overflows the stack on a deeply nested variation once a second snapshot arrives.
  // JSON.parse accepts such a body. protocol.md: evaluation never throws; docs/evaluation.md: "A malformed flag never throws and never affects
  // other flags."
  it('re-evaluating a snapshot with a deeply nested variation does not throw', () => {
    const values = createFlagValues({ snapshot: deepSnapshot(1, 20_000), context: {}, bucketingKey: 'u' });
    values.entry('plain').details;
    values.entry('deep').details;
    values.update({ snapshot: deepSnapshot(2, 20_000), context: {}, bucketingKey: 'u' });
    expect(values.entry('plain').details).toMatchObject({ value: true, version: 2 });
    expect(values.entry('deep').details).toMatchObject({ reason: 'DEFAULT', version: 2 });
  });

  it('huge arrays: 100,000 rules, values and slices evaluate normally', () => {
    const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const flag = makeFlag(
      [
        ...Array.from({ length: 100_000 }, (_, i) => ({ id: `r${i}`, conditions: [{ kind: 'attribute' as const, attribute: 'never', op: 'in' as const, values: ['x'] }], serve: { variation: 1 } })),
        { id: 'last', conditions: [{ kind: 'attribute', attribute: 'a', op: 'in', values }], serve: { rollout: Array.from({ length: 100_000 }, () => ({ variation: 2, weight: 1 })) } },
      ],
    );
    expect(evaluateFlag(flag, { attributes: { a: 'v99999' } }, 'u')).toMatchObject({ kind: 'served', reason: 'SPLIT', variation: 2, ruleId: 'last' });
  });
});

describe('checkSnapshot (snapshot-parse.ts): the envelope', () => {
  const good = { schemaVersion: 1, version: 3, environmentId: 'e', flags: {} };

  it('accepts a minimal schema-1 snapshot and returns it as is', () => {
    expect(checkSnapshot(good, 'test')).toEqual({ kind: 'ok', snapshot: good });
  });

  it.each([
    ['schemaVersion 2 (newer)', { ...good, schemaVersion: 2 }],
    ['schemaVersion "1"', { ...good, schemaVersion: '1' }],
    ['version missing', { ...good, version: undefined }],
    ['version negative', { ...good, version: -1 }],
    ['version fractional', { ...good, version: 1.5 }],
    ['version a string', { ...good, version: '3' }],
    ['environmentId missing', { ...good, environmentId: undefined }],
    ['flags an array', { ...good, flags: [] }],
    ['flags null', { ...good, flags: null }],
    ['an array', [good]],
    ['null', null],
  ])('rejects %s with a SchemaError naming the origin', (_name, value) => {
    const result = checkSnapshot(value, 'origin-x');
    expect(result.kind).toBe('invalid');
    if (result.kind === 'invalid') {
      expect(result.error.name).toBe('SchemaError');
      expect(result.error.message).toContain('origin-x');
    }
  });
});

describe('a malformed flag costs only itself, through the flag values', () => {
  it('its details carry PARSE_ERROR with value and variation null; its neighbours, even "__proto__", are served', () => {
    // Built from JSON, so "__proto__" is an own key, as a snapshot body would have it.
    const flags = JSON.parse(
      JSON.stringify({
        broken: { ...makeFlag(), fallthrough: { variation: 99 } },
        offBroken: { ...makeFlag(), on: false, rules: 'nope' },
        proto: makeFlag(),
      }).replace('"proto"', '"__proto__"'),
    ) as Record<string, Flag>;
    const snapshot: FlagSnapshot = { schemaVersion: 1, version: 9, environmentId: 'e', flags };
    const out = createFlagValues({ snapshot, context: {}, bucketingKey: 'u' });
    expect(out.entry('broken').details).toEqual({ key: 'broken', value: null, reason: 'ERROR', variation: null, version: 9, errorCode: 'PARSE_ERROR' });
    expect(out.entry('offBroken').details).toMatchObject({ reason: 'DISABLED', value: 'off', variation: 3 });
    expect(out.entry('__proto__').details).toMatchObject({ reason: 'DEFAULT', value: 'fallthrough' });
  });
});
