import { describe, expect, it, afterEach, vi } from 'vitest';
import vectors from '../fixtures/bucketing.json';
import { murmur3 } from '../../src/evaluation/murmur3';
import { BUCKET_COUNT, bucketFor, pickVariation } from '../../src/evaluation/bucketing';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { WeightedVariation, Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { makeFlag } from './flags';
import { harness } from '../helpers/client-harness';

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

describe('MurmurHash3 x86 32-bit', () => {
  // Published seed-0 values, independent of this repository's fixture.
  it.each([
    ['', 0],
    ['hello', 613153351],
    ['The quick brown fox jumps over the lazy dog', 776992547],
    ['abc', 0xb3dd93fa],
    ['\0\0\0\0', 0x2362f9de],
    ['!Ce', 0x7e4a8634],
  ])('murmur3(%j) = %i', (input, hash) => {
    expect(murmur3(input)).toBe(hash);
  });

  // Published values with the seed 0x9747b28c, to exercise the seed path.
  it.each([
    ['a', 0x7fa09ea6],
    ['ab', 0x74875592],
    ['abc', 0xc84a62dd],
    ['abcd', 0xf0478627],
    ['Hello, world!', 0x24884cba],
    ['ππππππππ', 0xd58063c1],
  ])('murmur3(%j, 0x9747b28c)', (input, hash) => {
    expect(murmur3(input, 0x9747b28c)).toBe(hash);
  });

  it('is an unsigned 32-bit integer', () => {
    for (let i = 0; i < 1000; i++) {
      const h = murmur3(`k${i}`);
      expect(Number.isInteger(h) && h >= 0 && h <= 0xffffffff).toBe(true);
    }
  });
});

// An independent MurmurHash3 over bytes (16-bit split multiplication instead of
// Math.imul), fed with Node's own UTF-8 encoder: murmur3 must hash exactly the bytes
// TextEncoder produces, lone surrogates included.
function referenceHash(bytes: Uint8Array): number {
  const mul = (a: number, b: number) => ((((a & 0xffff) * b) + ((((a >>> 16) * b) & 0xffff) << 16)) >>> 0);
  const mulx = (a: number, b: number) => (mul(a, b & 0xffff) + ((mul(a, b >>> 16) << 16) >>> 0)) >>> 0;
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  const mixK = (k: number) => mulx(rotl(mulx(k, 0xcc9e2d51), 15), 0x1b873593);
  let h = 0;
  const blocks = bytes.length - (bytes.length % 4);
  for (let i = 0; i < blocks; i += 4) {
    const k = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0;
    h = (mulx(rotl((h ^ mixK(k)) >>> 0, 13), 5) + 0xe6546b64) >>> 0;
  }
  let tail = 0;
  for (let i = bytes.length - 1; i >= blocks; i--) tail = ((tail << 8) | bytes[i]!) >>> 0;
  if (bytes.length % 4) h = (h ^ mixK(tail)) >>> 0;
  h = (h ^ bytes.length) >>> 0;
  h = mulx(h ^ (h >>> 16), 0x85ebca6b);
  h = mulx(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

describe('UTF-8 bytes', () => {
  const encoder = new TextEncoder();
  const expectUtf8Hash = (s: string) => {
    expect([...Buffer.from(s, 'utf8')]).toEqual([...encoder.encode(s)]);
    expect(murmur3(s), JSON.stringify(s)).toBe(referenceHash(encoder.encode(s)));
  };

  it('the reference hash agrees with the published values', () => {
    expect(referenceHash(encoder.encode('hello'))).toBe(613153351);
    expect(referenceHash(encoder.encode('The quick brown fox jumps over the lazy dog'))).toBe(776992547);
  });

  it.each(['', 'ascii', 'é', 'José', '中文', '😀', '👩‍💻', '\u007f\u0080\u07ff\u0800\uffff', '\u{10000}\u{10ffff}'])(
    'hashes the TextEncoder bytes of %j',
    (s) => expectUtf8Hash(s),
  );

  it('turns lone surrogates into U+FFFD like TextEncoder', () => {
    for (const s of ['\ud800', '\udfff', 'a\ud83dz', '\ude00\ud83d', '\ud83d\ud83d\ude00', 'x\udc00']) expectUtf8Hash(s);
    expect(murmur3('flag.\ud800')).toBe(murmur3('flag.\ufffd'));
  });

  it('agrees with TextEncoder on random strings of mixed planes', () => {
    let seed = 12345;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let n = 0; n < 2000; n++) {
      let s = '';
      for (let i = random() * 10; i > 0; i--) {
        const r = random();
        s += r < 0.7 ? String.fromCharCode((random() * 0x10000) | 0) : String.fromCodePoint(0x10000 + ((random() * 0x100000) | 0));
      }
      expectUtf8Hash(s);
    }
  });

  it('a long input hashed earlier does not change the hash of a shorter one', () => {
    const abc = murmur3('abc');
    murmur3('é'.repeat(10_000));
    expect(murmur3('abc')).toBe(abc);
    expect(murmur3('abc')).toBe(0xb3dd93fa);
  });
});

describe('bucketing vectors (test/fixtures/bucketing.json)', () => {
  it('has enough vectors, ASCII and not', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(30);
    expect(vectors.some((v) => /[^\x00-\x7f]/.test(v.input))).toBe(true);
  });

  it.each(vectors.map((v) => [v.input, v.hash, v.bucket] as const))('%j → hash %i, bucket %i', (input, hash, bucket) => {
    expect(murmur3(input)).toBe(hash);
    expect(hash % BUCKET_COUNT).toBe(bucket);
    const dot = input.indexOf('.');
    if (dot >= 0) expect(bucketFor(input.slice(0, dot), input.slice(dot + 1))).toBe(bucket);
  });
});

describe('bucketFor', () => {
  it('is the hash of "<salt>.<key>" mod 100000', () => {
    expect(bucketFor('new-checkout', 'user-42')).toBe(4125);
    expect(bucketFor('new-checkout', '')).toBe(murmur3('new-checkout.') % 100000);
  });

  it('is stable: the same input always gives the same bucket', () => {
    for (let i = 0; i < 500; i++) {
      const first = bucketFor('stable', `user-${i}`);
      for (let j = 0; j < 3; j++) expect(bucketFor('stable', `user-${i}`)).toBe(first);
    }
  });

  it('stays within 0…99999', () => {
    for (let i = 0; i < 10000; i++) {
      const b = bucketFor('range', `u${i}`);
      expect(b >= 0 && b < 100000 && Number.isInteger(b)).toBe(true);
    }
  });

  it('is bucket 0 without a key', () => {
    expect(bucketFor('any-salt', undefined)).toBe(0);
  });

  it('depends on the salt, so flags bucket independently', () => {
    let both = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) if (bucketFor('flag-a', `user-${i}`) < 50000 && bucketFor('flag-b', `user-${i}`) < 50000) both++;
    expect(Math.abs(both / n - 0.25)).toBeLessThan(0.02);
  });
});

describe('pickVariation', () => {
  const rollout: WeightedVariation[] = [
    { variation: 0, weight: 10000 },
    { variation: 1, weight: 0 },
    { variation: 2, weight: 90000 },
  ];

  it('serves the first slice whose cumulative weight exceeds the bucket', () => {
    expect(pickVariation(rollout, 0)).toBe(0);
    expect(pickVariation(rollout, 9999)).toBe(0);
    expect(pickVariation(rollout, 10000)).toBe(2); // the zero-weight slice never serves
    expect(pickVariation(rollout, 99999)).toBe(2);
  });

  it('skips leading zero-weight slices at bucket 0', () => {
    expect(pickVariation([{ variation: 4, weight: 0 }, { variation: 5, weight: 100000 }], 0)).toBe(5);
  });

  it('is undefined when the weights do not reach the bucket', () => {
    expect(pickVariation([{ variation: 0, weight: 100 }], 100)).toBeUndefined();
  });
});

describe('rollouts through evaluateFlag', () => {
  const distribution = (weights: number[], n = 100000) => {
    const flag = makeFlag([], { salt: 'distribution', fallthrough: { rollout: weights.map((weight, variation) => ({ variation, weight })) } });
    const counts = weights.map(() => 0);
    for (let i = 0; i < n; i++) {
      const result = evaluateFlag(flag, {}, `user-${i}`);
      if (result.kind !== 'served' || result.reason !== 'SPLIT') throw new Error(`unexpected ${JSON.stringify(result)}`);
      counts[result.variation]!++;
    }
    return counts.map((c) => c / n);
  };

  it.each([
    [[10000, 90000]],
    [[33000, 33000, 34000]],
  ])('%j lands within ±1 percentage point over 100,000 users', (weights) => {
    const shares = distribution(weights);
    weights.forEach((w, i) => expect(Math.abs(shares[i]! - w / 100000)).toBeLessThanOrEqual(0.01));
  });

  it('serves the same variation to the same user every time', () => {
    const flag = makeFlag([], { fallthrough: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] } });
    for (let i = 0; i < 200; i++) {
      const first = evaluateFlag(flag, {}, `user-${i}`);
      expect(evaluateFlag(flag, { attributes: { unrelated: i } }, `user-${i}`)).toEqual(first);
    }
  });

  it('matches the published worked example: new-checkout / user-42 is bucket 4125', () => {
    const flag = makeFlag([], {
      salt: 'new-checkout',
      fallthrough: { rollout: [{ variation: 0, weight: 4125 }, { variation: 1, weight: 95875 }] },
    });
    expect(evaluateFlag(flag, {}, 'user-42')).toMatchObject({ variation: 1 }); // 4125 is not < 4125
    const wider = { ...flag, fallthrough: { rollout: [{ variation: 0, weight: 4126 }, { variation: 1, weight: 95874 }] } };
    expect(evaluateFlag(wider, {}, 'user-42')).toMatchObject({ variation: 0 });
  });

  it('without a bucketing key serves the first slice of non-zero weight', () => {
    const flag = makeFlag([], {
      fallthrough: { rollout: [{ variation: 2, weight: 0 }, { variation: 1, weight: 1 }, { variation: 0, weight: 99999 }] },
    });
    expect(evaluateFlag(flag, {}, undefined)).toEqual({ kind: 'served', reason: 'SPLIT', variation: 1, value: 'rule-a' });
  });
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
