import type { Flag, FlagSnapshot } from '../../src/index';

/** `banner` serves `pro` to contexts whose `plan` is `pro`, `everyone` to the rest. */
export const bannerFlag: Flag = {
  on: true,
  variations: ['everyone', 'pro'],
  offVariation: 0,
  rules: [{ id: 'plan-pro', conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variation: 1 } }],
  fallthrough: { variation: 0 },
  salt: 'banner',
  clientSide: true,
};

/** A schema-1 snapshot with the targeted `banner` and a flag `theme` that serves `dark`. */
export function targetedSnapshot(version: number): FlagSnapshot {
  return {
    schemaVersion: 1,
    version,
    environmentId: 'test',
    flags: { banner: bannerFlag, theme: { ...bannerFlag, variations: ['dark'], rules: [], salt: 'theme' } },
  };
}
