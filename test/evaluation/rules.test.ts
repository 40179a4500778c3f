import { describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import type { Condition } from '../../src/snapshot/snapshot-types';
import { bad, makeFlag, rule } from './flags';

const country = (...values: string[]): Condition => ({ kind: 'attribute', attribute: 'country', op: 'in', values });
const plan = (...values: string[]): Condition => ({ kind: 'attribute', attribute: 'plan', op: 'in', values });

describe('evaluateFlag: reasons', () => {
  it('an off flag serves its off variation, whatever the rules', () => {
    const flag = makeFlag([rule('everyone', [])], { on: false });
    expect(evaluateFlag(flag, {}, 'u')).toEqual({ kind: 'served', reason: 'DISABLED', variation: 3, value: 'off' });
  });

  it('a matching rule with a fixed variation is TARGETING_MATCH with its ruleId', () => {
    const flag = makeFlag([rule('fr', [country('FR')], { variation: 2 })]);
    expect(evaluateFlag(flag, { attributes: { country: 'FR' } }, 'u')).toEqual({
      kind: 'served',
      reason: 'TARGETING_MATCH',
      variation: 2,
      value: 'rule-b',
      ruleId: 'fr',
    });
  });

  it('no matching rule and a fixed fallthrough is DEFAULT, without ruleId', () => {
    const result = evaluateFlag(makeFlag([rule('fr', [country('FR')])]), { attributes: { country: 'DE' } }, 'u');
    expect(result).toEqual({ kind: 'served', reason: 'DEFAULT', variation: 0, value: 'fallthrough' });
    expect(result).not.toHaveProperty('ruleId');
  });

  it('a rollout in a rule is SPLIT with the ruleId', () => {
    const flag = makeFlag([rule('all', [], { rollout: [{ variation: 2, weight: 100000 }] })]);
    expect(evaluateFlag(flag, {}, 'u')).toEqual({
      kind: 'served',
      reason: 'SPLIT',
      variation: 2,
      value: 'rule-b',
      ruleId: 'all',
    });
  });

  it('a rollout in the fallthrough is SPLIT without ruleId', () => {
    const flag = makeFlag([], { fallthrough: { rollout: [{ variation: 0, weight: 0 }, { variation: 1, weight: 100000 }] } });
    const result = evaluateFlag(flag, {}, 'u');
    expect(result).toEqual({ kind: 'served', reason: 'SPLIT', variation: 1, value: 'rule-a' });
    expect(result).not.toHaveProperty('ruleId');
  });

  it('an empty rule id is still reported', () => {
    expect(evaluateFlag(makeFlag([rule('', [])]), {}, 'u')).toMatchObject({ reason: 'TARGETING_MATCH', ruleId: '' });
  });

  it('serves any JSON value, by reference', () => {
    const config = { theme: 'dark', sizes: [1, 2] };
    const flag = makeFlag([], { variations: [config, null], offVariation: 1, fallthrough: { variation: 0 } });
    const result = evaluateFlag(flag, {}, undefined);
    expect(result.kind === 'served' && result.value).toBe(config);
    expect(evaluateFlag({ ...flag, fallthrough: { variation: 1 } }, {}, undefined)).toMatchObject({ value: null });
  });
});

describe('evaluateFlag: rules', () => {
  const flag = makeFlag([
    rule('fr-pro', [country('FR'), plan('pro')], { variation: 2 }),
    rule('fr', [country('FR')], { variation: 1 }),
    rule('everyone-else', [], { variation: 3 }),
  ]);

  it('the first matching rule wins, in order', () => {
    expect(evaluateFlag(flag, { attributes: { country: 'FR', plan: 'pro' } }, 'u')).toMatchObject({ ruleId: 'fr-pro', variation: 2 });
    expect(evaluateFlag(flag, { attributes: { country: 'FR', plan: 'free' } }, 'u')).toMatchObject({ ruleId: 'fr', variation: 1 });
    expect(evaluateFlag(flag, { attributes: { country: 'DE', plan: 'pro' } }, 'u')).toMatchObject({
      ruleId: 'everyone-else',
      variation: 3,
    });
  });

  it('a later rule that would also match never overrides an earlier one', () => {
    const swapped = makeFlag([rule('broad', [], { variation: 1 }), rule('narrow', [country('FR')], { variation: 2 })]);
    expect(evaluateFlag(swapped, { attributes: { country: 'FR' } }, 'u')).toMatchObject({ ruleId: 'broad', variation: 1 });
  });

  it('all conditions of a rule must hold (AND)', () => {
    const only = makeFlag([rule('fr-pro', [country('FR'), plan('pro')])]);
    expect(evaluateFlag(only, { attributes: { country: 'FR' } }, 'u')).toMatchObject({ reason: 'DEFAULT' });
    expect(evaluateFlag(only, { attributes: { plan: 'pro' } }, 'u')).toMatchObject({ reason: 'DEFAULT' });
  });

  it('a rule without conditions matches every context, even an empty one', () => {
    expect(evaluateFlag(makeFlag([rule('all', [])]), {}, undefined)).toMatchObject({ ruleId: 'all' });
  });

  it('no rules at all: the fallthrough serves', () => {
    expect(evaluateFlag(makeFlag([]), { attributes: { country: 'FR' } }, 'u')).toMatchObject({ reason: 'DEFAULT' });
  });

  it('a condition of an unknown kind is false, negated or not, and the next rule is tried', () => {
    const future = (negate: boolean) =>
      makeFlag([
        rule('future', [bad({ kind: 'geo', radiusKm: 5, negate })]),
        rule('fallback', [], { variation: 2 }),
      ]);
    expect(evaluateFlag(future(false), {}, 'u')).toMatchObject({ ruleId: 'fallback' });
    expect(evaluateFlag(future(true), {}, 'u')).toMatchObject({ ruleId: 'fallback' });
  });

  it('userId is not an attribute: conditions only read context.attributes', () => {
    const byId = makeFlag([rule('id', [{ kind: 'attribute', attribute: 'userId', op: 'in', values: ['u-1'] }])]);
    expect(evaluateFlag(byId, { userId: 'u-1' }, 'u-1')).toMatchObject({ reason: 'DEFAULT' });
    expect(evaluateFlag(byId, { userId: 'u-1', attributes: { userId: 'u-1' } }, 'u-1')).toMatchObject({ ruleId: 'id' });
  });

  it('does not modify the flag or the context', () => {
    const context = { attributes: { country: 'FR', plan: 'pro' }, segmentIds: ['a'] };
    const before = JSON.stringify([flag, context]);
    evaluateFlag(flag, context, 'u');
    expect(JSON.stringify([flag, context])).toBe(before);
  });
});
