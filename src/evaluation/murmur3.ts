/**
 * Calls `emit` with each UTF-8 byte of `s`, like `TextEncoder`: a lone surrogate
 * becomes U+FFFD (EF BF BD). Written out because the evaluator must not depend on
 * `TextEncoder`, and streamed so that hashing allocates nothing.
 */
export function utf8(s: string, emit: (byte: number) => void): void {
  for (let i = 0; i < s.length; i++) {
    let c = s.codePointAt(i)!;
    if (c > 0xffff) i++; // a valid surrogate pair: one code point, two code units
    else if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
    // n continuation bytes follow a lead byte of n + 1 high one-bits (0xc0, 0xe0, 0xf0).
    const n = c < 0x80 ? 0 : c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
    emit(n ? (256 - (128 >> n)) | (c >> (6 * n)) : c);
    for (let j = n; j--; ) emit(0x80 | ((c >> (6 * j)) & 63));
  }
}

const mixK = (k: number): number => {
  k = Math.imul(k, 0xcc9e2d51);
  return Math.imul((k << 15) | (k >>> 17), 0x1b873593);
};

/** MurmurHash3 x86 32-bit of the UTF-8 bytes of `s`, as an unsigned 32-bit integer. */
export function murmur3(s: string, seed = 0): number {
  let h = seed;
  let k = 0;
  let n = 0;
  // Little-endian 4-byte blocks; a final partial block is mixed without the rotation.
  utf8(s, (byte) => {
    k |= byte << (8 * (n & 3));
    if ((++n & 3) === 0) {
      h ^= mixK(k);
      h = (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
      k = 0;
    }
  });
  if (n & 3) h ^= mixK(k);
  h ^= n;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
