// Reused, and grown to the longest input so far: allocating an array for every hash
// costs more than the hash itself (which is also why this is not `TextEncoder.encode`).
let buffer: Uint8Array | undefined;

const { imul } = Math;

const mixK = (k: number): number => {
  k = imul(k, 0xcc9e2d51);
  return imul((k << 15) | (k >>> 17), 0x1b873593);
};

/**
 * MurmurHash3 x86 32-bit of the UTF-8 bytes of `s`, as an unsigned 32-bit integer.
 * `TextEncoder` turns a lone surrogate into U+FFFD (EF BF BD), as docs/evaluation.md says.
 */
export function murmur3(s: string, seed = 0): number {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  if (!buffer || buffer.length < s.length * 3) buffer = new Uint8Array(s.length * 3);
  const n = new TextEncoder().encodeInto(s, buffer).written;
  let h = seed;
  let k = 0;
  // Little-endian 4-byte blocks, then the final partial block without the rotation.
  // Mixing an empty tail (k = 0) changes nothing: mixK(0) is 0.
  for (let i = 0; i < n; ) {
    k |= buffer[i]! << (8 * (i & 3));
    if (++i % 4 === 0) {
      h ^= mixK(k);
      h = (imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
      k = 0;
    }
  }
  h ^= mixK(k) ^ n;
  h = imul(h ^ (h >>> 16), 0x85ebca6b);
  h = imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
