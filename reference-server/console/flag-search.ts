/**
 * The flags pane's search: which flags a query matches, the count line, and the query kept in
 * the address bar's fragment (`#search=…`) so a reload or a shared link shows the same list.
 */
import type { Flag } from '../../src/index';
import { isRecord } from '../../src/shared/guards';

/** What a flag is searched by, lower-cased: its key and its metadata's names and values. */
const haystacks = new WeakMap<object, string>();

function haystackOf(key: string, flag: Flag): string {
  const cached = isRecord(flag) ? haystacks.get(flag) : undefined;
  if (cached !== undefined) return cached;
  const metadata = isRecord(flag) && isRecord(flag.metadata) ? Object.entries(flag.metadata).map(([name, value]) => `${name} ${String(value)}`) : [];
  const text = [key, ...metadata].join('\n').toLowerCase();
  if (isRecord(flag)) haystacks.set(flag, text);
  return text;
}

const sorted = new WeakMap<object, Array<[string, Flag]>>();

/** The flags by key (code point order), sorted once per flags object: a keystroke only filters. */
function sortedEntries(flags: Readonly<Record<string, Flag>>): Array<[string, Flag]> {
  let entries = sorted.get(flags);
  if (!entries) {
    entries = Object.entries(flags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    sorted.set(flags, entries);
  }
  return entries;
}

/** The query's words, lower-cased; a flag matches when it contains every one of them. */
export const queryWords = (query: string): string[] => query.toLowerCase().split(/\s+/).filter(Boolean);

/**
 * The flags whose key or metadata (names and values: `owner team-web`) contain every word of
 * `query`, ignoring case, sorted by key. An empty query matches every flag.
 */
export function searchFlags(flags: Readonly<Record<string, Flag>>, query: string): Array<[string, Flag]> {
  const words = queryWords(query);
  const entries = sortedEntries(flags);
  if (!words.length) return entries;
  return entries.filter(([key, flag]) => {
    const text = haystackOf(key, flag);
    return words.every((word) => text.includes(word));
  });
}

/** Whether `key` contains every word of `query`, ignoring case (the demo pane has keys only). */
export function keyMatches(key: string, query: string): boolean {
  const lower = key.toLowerCase();
  return queryWords(query).every((word) => lower.includes(word));
}

const number = new Intl.NumberFormat('en-US');

/** `12 of 10,000 flags`, or `10,000 flags` when nothing is filtered out. */
export function countLine(shown: number, total: number): string {
  const noun = total === 1 ? 'flag' : 'flags';
  return shown === total ? `${number.format(total)} ${noun}` : `${number.format(shown)} of ${number.format(total)} ${noun}`;
}

/** The search in the fragment at start-up (`#search=checkout`). */
export function initialSearch(): string {
  return new URLSearchParams(location.hash.replace(/^#/, '')).get('search') ?? '';
}

/** Keeps the search in the fragment, replacing the history entry: typing adds no Back steps. */
export function saveSearch(query: string): void {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  if (query) fragment.set('search', query);
  else fragment.delete('search');
  const rest = fragment.toString();
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
}
