import type { Flag, FlagSnapshot, JsonValue } from '../../src/snapshot/snapshot-types';

/** A flag serving `value` to everyone. */
export const serving = (value: JsonValue, salt = 'salt'): Flag => ({
  on: true,
  variations: [value],
  offVariation: 0,
  rules: [],
  fallthrough: { variation: 0 },
  salt,
  clientSide: true,
});

/** `true` for users whose `plan` is `pro` (rule `pro`), `false` for the rest. */
export const proOnly: Flag = {
  on: true,
  variations: [false, true],
  offVariation: 0,
  rules: [{ id: 'pro', conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variation: 1 } }],
  fallthrough: { variation: 0 },
  salt: 'dark-mode',
  clientSide: true,
  variationKeys: ['off', 'on'],
  metadata: { owner: 'design', sunset: 2027, temporary: true },
};

/** The flags the OpenFeature tests resolve; `theme` is what each publish changes. */
export function providerSnapshot(theme = 'light', darkModeForAll = false): FlagSnapshot {
  return {
    schemaVersion: 1,
    version: 0,
    environmentId: 'production',
    flags: {
      'dark-mode': darkModeForAll ? { ...proOnly, fallthrough: { variation: 1 } } : proOnly,
      theme: serving(theme, 'theme'),
      'page-size': serving(20, 'page-size'),
      banner: serving({ show: true, headline: 'Spring' }, 'banner'),
      tags: serving(['a', 'b'], 'tags'),
      'server-only': { ...serving('secret', 'server-only'), clientSide: false },
      // Variation 9 does not exist: evaluated, this is a PARSE_ERROR.
      broken: { ...serving('never', 'broken'), fallthrough: { variation: 9 } },
    },
  };
}
