// The console's large-list parts as pure functions: the search, the merge that keeps unchanged
// flags' objects (what lets their memoised cards skip a render), a change applied from the
// server's answer, and the windowed list's row offsets.
import { describe, expect, it } from 'vitest';
import type { Flag } from '../../src/index';
import type { EnvironmentInfo, FlagChange } from '../../reference-server/console/api';
import { mergeEnvironment, mergeEnvironments, sameJson, withFlagChange } from '../../reference-server/console/environment-merge';
import { countLine, keyMatches, searchFlags } from '../../reference-server/console/flag-search';
import { rowAt, rowTops } from '../../reference-server/console/windowed-list';

const flag = (on: boolean, metadata?: Record<string, string | number | boolean>) =>
  ({ on, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 's', clientSide: true, ...(metadata ? { metadata } : {}) }) as Flag;

const environment = (version: number, flags: Record<string, Flag>, streams = 0): EnvironmentInfo => ({
  id: 'production',
  kind: 'production',
  version,
  versions: [version],
  streams,
  snapshot: { schemaVersion: 1, version, environmentId: 'production', flags },
});

describe('searchFlags', () => {
  const flags = { 'new-checkout': flag(true, { owner: 'team-web' }), 'Dark-Mode': flag(false), 'search-page-size': flag(true, { owner: 'team-search', ticket: 42 }) };

  it('matches every word in the key or the metadata, ignoring case, sorted by key', () => {
    expect(searchFlags(flags, '').map(([key]) => key)).toEqual(['Dark-Mode', 'new-checkout', 'search-page-size']);
    expect(searchFlags(flags, 'dark').map(([key]) => key)).toEqual(['Dark-Mode']);
    expect(searchFlags(flags, 'TEAM').map(([key]) => key)).toEqual(['new-checkout', 'search-page-size']);
    expect(searchFlags(flags, 'team page').map(([key]) => key)).toEqual(['search-page-size']);
    expect(searchFlags(flags, '42').map(([key]) => key)).toEqual(['search-page-size']);
    expect(searchFlags(flags, 'ticket 43')).toEqual([]);
    expect(searchFlags(flags, '  ').length).toBe(3);
  });

  it('never throws on a malformed flag, which is searched by its key', () => {
    const malformed = { 'odd-one': 7 as unknown as Flag, nulled: null as unknown as Flag };
    expect(searchFlags(malformed, 'odd').map(([key]) => key)).toEqual(['odd-one']);
  });

  it('keyMatches and countLine', () => {
    expect(keyMatches('New-Checkout', 'checkout new')).toBe(true);
    expect(keyMatches('new-checkout', 'old')).toBe(false);
    expect(countLine(12, 10_000)).toBe('12 of 10,000 flags');
    expect(countLine(10_000, 10_000)).toBe('10,000 flags');
    expect(countLine(1, 1)).toBe('1 flag');
  });
});

describe('mergeEnvironment', () => {
  it('keeps the object of every flag whose JSON did not change, and the whole entry when nothing did', () => {
    const shown = environment(3, { a: flag(true), b: flag(false, { owner: 'x' }) });
    const same = environment(3, { b: flag(false, { owner: 'x' }), a: flag(true) });
    expect(mergeEnvironment(shown, same)).toBe(shown);

    const next = environment(4, { a: flag(true), b: flag(true, { owner: 'x' }), c: flag(false) });
    const merged = mergeEnvironment(shown, next);
    expect(merged).toEqual(next);
    expect(merged.snapshot.flags.a).toBe(shown.snapshot.flags.a);
    expect(merged.snapshot.flags.b).toBe(next.snapshot.flags.b);

    const onlyStreams = mergeEnvironment(shown, environment(3, { a: flag(true), b: flag(false, { owner: 'x' }) }, 2));
    expect(onlyStreams.streams).toBe(2);
    expect(onlyStreams.snapshot).toBe(shown.snapshot);

    const removed = mergeEnvironment(shown, environment(4, { a: flag(true) }));
    expect(Object.keys(removed.snapshot.flags)).toEqual(['a']);
    expect(removed.snapshot.flags.a).toBe(shown.snapshot.flags.a);
  });

  it('mergeEnvironments keeps the array when no environment changed', () => {
    const shown = [environment(3, { a: flag(true) })];
    expect(mergeEnvironments(shown, [environment(3, { a: flag(true) })])).toBe(shown);
    expect(mergeEnvironments(null, shown)).toBe(shown);
    const next = mergeEnvironments(shown, [environment(3, { a: flag(false) })]);
    expect(next).not.toBe(shown);
    expect(next[0]!.snapshot.flags.a!.on).toBe(false);
  });

  it('sameJson compares members, not their order, and tells arrays from objects', () => {
    expect(sameJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});

describe('withFlagChange', () => {
  const shown = [environment(3, { a: flag(false), b: flag(false) })];
  const change = (version: number, key: string, value?: Flag): FlagChange => ({ environmentId: 'production', version, key, ...(value ? { flag: value } : {}) });

  it('applies the next version at once, other flags keeping their objects', () => {
    const next = withFlagChange(shown, change(4, 'a', flag(true)))!;
    expect(next[0]!.version).toBe(4);
    expect(next[0]!.versions).toEqual([3, 4]);
    expect(next[0]!.snapshot.version).toBe(4);
    expect(next[0]!.snapshot.flags.a!.on).toBe(true);
    expect(next[0]!.snapshot.flags.b).toBe(shown[0]!.snapshot.flags.b);
    expect(Object.keys(withFlagChange(shown, { ...change(4, 'b'), removed: true })![0]!.snapshot.flags)).toEqual(['a']);
    // An answer without the flag, not a DELETE's: nothing to show from it, the feed's read will.
    expect(withFlagChange(shown, change(4, 'b'))).toBe(shown);
  });

  it('leaves a gap to the feed: a version that is not the next one, or another environment', () => {
    expect(withFlagChange(shown, change(5, 'a', flag(true)))).toBe(shown);
    expect(withFlagChange(shown, change(3, 'a', flag(true)))).toBe(shown);
    expect(withFlagChange(shown, { ...change(4, 'a', flag(true)), environmentId: 'staging' })).toBe(shown);
    expect(withFlagChange(null, change(4, 'a', flag(true)))).toBeNull();
  });
});

describe('the windowed list offsets', () => {
  it('puts measured rows at their height and the others at the estimate', () => {
    const tops = rowTops(['a', 'b', 'c', 'd'], new Map([['b', 50]]), 100);
    expect([...tops]).toEqual([0, 100, 150, 250, 350]);
    expect(rowAt(tops, -500)).toBe(0);
    expect(rowAt(tops, 0)).toBe(0);
    expect(rowAt(tops, 99)).toBe(0);
    expect(rowAt(tops, 100)).toBe(1);
    expect(rowAt(tops, 160)).toBe(2);
    expect(rowAt(tops, 10_000)).toBe(3);
    expect(rowAt(rowTops([], new Map(), 100), 50)).toBe(0);
  });
});
