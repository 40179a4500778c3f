/**
 * Proactive negotiation of the content coding (RFC 9110 §12.5.3): which of `br`, `gzip` or no
 * coding an answer goes out in, from the request's `Accept-Encoding` and the body's size.
 */

/** The codings the server compresses with. */
export type ContentCoding = 'br' | 'gzip';

/** What an answer is sent in: a compressed coding, or the body as it is. */
export type ChosenCoding = ContentCoding | 'identity';

/** Below it a body goes out as it is: a compressed answer would save less than its headers and the work cost. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Ties go to the first: brotli is 15–20 % smaller than gzip on snapshot JSON (npm run bench:compress). */
const PREFERENCE: readonly ChosenCoding[] = ['br', 'gzip', 'identity'];

/** An `identity` the header neither names nor covers with `*`: acceptable, below any coding listed (RFC 9110 §12.5.3). */
const IMPLICIT_IDENTITY = 0.0001;

const QVALUE = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * The q-value of each coding an `Accept-Encoding` value names, by lowercase name (`x-gzip` is
 * `gzip`, RFC 9110 §8.4.1.3). An entry whose weight is malformed is left out; a coding named
 * twice keeps its highest weight.
 */
export function parseAcceptEncoding(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [name = '', ...params] = entry.split(';').map((part) => part.trim());
    if (name === '') continue;
    const q = params.find((param) => /^q\s*=/i.test(param))?.replace(/\s+/g, '');
    const match = q === undefined ? undefined : QVALUE.exec(q);
    if (q !== undefined && !match) continue;
    const weight = match ? Number(match[1]) : 1;
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    weights.set(coding, Math.max(weight, weights.get(coding) ?? 0));
  }
  return weights;
}

/** The weight a request gives `coding`: its own entry, else `*`'s, else none (identity: acceptable, last). */
function weightOf(weights: ReadonlyMap<string, number>, coding: ChosenCoding): number {
  const weight = weights.get(coding) ?? weights.get('*');
  if (weight !== undefined) return weight;
  return coding === 'identity' ? IMPLICIT_IDENTITY : 0;
}

/** Bodies sent compressed: from {@link MIN_COMPRESSED_BYTES} up to the compressed cache's size. */
export interface CompressibleSizes {
  minBytes: number;
  maxBytes: number;
}

/**
 * The coding of an answer whose body is `bodyBytes` long. No header: the body as it is (a client
 * that says nothing, curl without `--compressed`, may not decode). Otherwise the highest weight
 * wins, ties going br, gzip, identity. A body outside `sizes` goes as it is when identity is
 * acceptable; when nothing the server has is acceptable (`identity;q=0` with only `deflate`),
 * the body goes as it is too: RFC 9110 §12.1 lets a server disregard the header rather than
 * answer 406, and a flag read must not fail over a preference.
 */
export function chooseCoding(header: string | undefined, bodyBytes: number, sizes: CompressibleSizes): ChosenCoding {
  if (header === undefined) return 'identity';
  const weights = parseAcceptEncoding(header);
  const outside = bodyBytes < sizes.minBytes || bodyBytes > sizes.maxBytes;
  if (outside && (weightOf(weights, 'identity') > 0 || bodyBytes > sizes.maxBytes)) return 'identity';
  let best: ChosenCoding = 'identity';
  let bestWeight = 0;
  for (const coding of PREFERENCE) {
    const weight = weightOf(weights, coding);
    if (weight > bestWeight) [best, bestWeight] = [coding, weight];
  }
  return best;
}
