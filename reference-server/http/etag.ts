/** The strong ETag of a snapshot version: `"snapshot-<version>"`. */
export function snapshotEtag(version: number): string {
  return `"snapshot-${version}"`;
}

/** The entity-tags of an `If-None-Match` list; commas inside quotes do not split. */
function parseEntityTags(header: string): string[] {
  return header.match(/(?:W\/)?"[^"]*"|\*/g) ?? [];
}

/**
 * RFC 9110 §13.1.2: `If-None-Match` uses the weak comparison, so `W/"snapshot-3"`
 * matches `"snapshot-3"`, and `*` matches any current representation.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return parseEntityTags(header).some((tag) => tag === '*' || opaque(tag) === opaque(etag));
}
