const fnv1a = (text: string, hash: number): string => {
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
};

/**
 * A non-reversible fingerprint for cache keys and tab channels (never store a key itself):
 * two FNV-1a passes with different offsets, 64 bits, so two SDK keys practically never
 * share an entry — with 32, a search over 10^5 keys finds a pair.
 */
export const fingerprint = (text: string): string => fnv1a(text, 0x811c9dc5) + fnv1a(text, 0x050c5d1f);
