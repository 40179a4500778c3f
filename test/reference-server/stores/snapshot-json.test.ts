// The JSON of stored snapshots, assembled from each flag's JSON written once (stores/snapshot-json.ts).
import { describe, expect, it } from 'vitest';
import { flagJson, snapshotJson, withFlag } from '../../../reference-server/stores/snapshot-json';
import type { FlagSnapshot } from '../../../src/snapshot/snapshot-types';

const flag = (clientSide: boolean, extra: object = {}) => ({ on: true, variations: [1, 2.5, 'x', { deep: [null, true] }], clientSide, ...extra }) as never;

function snapshot(): FlagSnapshot {
  return {
    schemaVersion: 1,
    version: 7,
    environmentId: 'production',
    flags: { zeta: flag(true), '10': flag(false), '2': flag(true), 'quote"d\\': flag(true, { text: 'zß水🚀\u2028' }), empty: flag(false) },
  };
}

describe('snapshotJson', () => {
  it('is the bytes JSON.stringify writes for the same members in its order, empty flags and an empty envelope included', () => {
    const s = snapshot();
    expect(snapshotJson(s).toString()).toBe(JSON.stringify(s));
    expect(snapshotJson({ ...s, flags: {} }).toString()).toBe(JSON.stringify({ ...s, flags: {} }));
    expect(snapshotJson({ flags: s.flags } as never).toString()).toBe(JSON.stringify({ flags: s.flags }));
  });

  it('reuses a flag bytes only under the same key', () => {
    const shared = flag(true);
    const s = { schemaVersion: 1, flags: { one: shared, two: shared } } as never as FlagSnapshot;
    expect(JSON.parse(snapshotJson(s).toString()).flags).toEqual({ one: shared, two: shared });
  });

  it('is JSON of the snapshot: members, flags (integer-like keys and escapes included) and values all survive', () => {
    const s = { ...snapshot(), extra: { kept: [1, 2] }, gone: undefined } as FlagSnapshot;
    const { gone: _gone, ...expected } = s as FlagSnapshot & { gone?: unknown };
    expect(JSON.parse(snapshotJson(s).toString())).toEqual(expected);
    expect(Object.keys(JSON.parse(snapshotJson(s).toString()).flags)).toEqual(Object.keys(s.flags));
  });

  it('writes only client-side flags for client keys', () => {
    const parsed = JSON.parse(snapshotJson(snapshot(), 'client-side').toString());
    expect(Object.keys(parsed.flags).sort()).toEqual(['2', 'quote"d\\', 'zeta']);
    expect(parsed.version).toBe(7);
  });

  it('writes the same bytes whatever the order of the snapshot object members', () => {
    const { flags, ...envelope } = snapshot();
    const reordered = { flags, environmentId: envelope.environmentId, version: envelope.version, schemaVersion: envelope.schemaVersion };
    expect(snapshotJson(reordered).toString()).toBe(snapshotJson({ ...envelope, flags }).toString());
    expect(snapshotJson(reordered).toString().startsWith('{"schemaVersion":1,"version":7,"environmentId":"production","flags":{')).toBe(true);
  });
});

describe('flagJson and withFlag', () => {
  it('remembers a flag JSON and freezes the flag deeply, so the JSON cannot go stale', () => {
    const f = flag(true) as { variations: Array<{ deep?: unknown[] }> };
    const json = flagJson(f);
    expect(json).toBe(JSON.stringify(f));
    expect(Object.isFrozen(f)).toBe(true);
    expect(Object.isFrozen(f.variations[3]!.deep)).toBe(true);
    expect(() => {
      (f as { on?: boolean }).on = false;
    }).toThrow(TypeError);
    expect(flagJson(f)).toBe(json);
  });

  it('replaces, adds and removes one flag in a new map, sharing every other flag object', () => {
    const s = snapshot();
    const replaced = withFlag(s.flags, 'zeta', flag(false));
    expect(replaced).not.toBe(s.flags);
    expect(replaced.zeta).not.toBe(s.flags.zeta);
    expect(replaced['10']).toBe(s.flags['10']);
    expect(Object.keys(replaced)).toEqual(Object.keys(s.flags));
    expect(Object.keys(withFlag(s.flags, 'new', flag(true)))).toEqual([...Object.keys(s.flags), 'new']);
    expect(Object.hasOwn(withFlag(s.flags, 'empty', undefined), 'empty')).toBe(false);
    expect(Object.hasOwn(s.flags, 'empty')).toBe(true);
  });
});
