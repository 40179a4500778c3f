import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/index';
import type { Flag } from '../../src/snapshot/snapshot-types';
import { banner, expectUnchangeable } from '../helpers/frozen';

/** Variation 1 to the `pro` plan, variation 0 to everyone else. */
const flagOf = (): Flag => ({
  on: true,
  variations: [banner('free'), banner('pro')],
  offVariation: 0,
  rules: [{ id: 'pro', conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variation: 1 } }],
  fallthrough: { variation: 0 },
  salt: 'banner',
  clientSide: true,
});
const pro = { userId: 'a', attributes: { plan: 'pro' } };
const valueOf = (flag: Flag, context: object) => {
  const result = evaluateFlag(flag, context, 'key');
  return result.kind === 'served' ? result.value : undefined;
};

describe('evaluateFlag freezes what it serves', () => {
  it('the served variation is frozen through, in the caller’s flag; another context is served it unchanged', () => {
    const flag = flagOf();
    const served = valueOf(flag, pro);
    expect(served).toBe(flag.variations[1]);
    expectUnchangeable(served);
    expect(valueOf(flag, { userId: 'b', attributes: { plan: 'pro' } })).toEqual(banner('pro'));
    // Only what it served: the variation no context was served yet is the caller's as it was.
    expect(Object.isFrozen(flag.variations[0])).toBe(false);
    expectUnchangeable(valueOf(flag, { userId: 'c' }));
    expect(valueOf(flag, { userId: 'd' })).toEqual(banner('free'));
  });

  it('serves a variation already frozen as it is, and still modifies nothing else of the flag', () => {
    const flag = flagOf();
    const before = JSON.stringify(flag);
    const first = valueOf(flag, pro);
    expect(valueOf(flag, pro)).toBe(first);
    expect(JSON.stringify(flag)).toBe(before);
    expect(Object.isFrozen(flag) || Object.isFrozen(flag.rules) || Object.isFrozen(flag.variations)).toBe(false);
  });
});
