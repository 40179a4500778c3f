// Issue 24: what schema 1 gained (variationKeys, metadata, the `is` operator), and what a
// client that predates each does with it.
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateFlag } from '../../src/evaluation/evaluate-flag';
import { OPERATORS } from '../../src/evaluation/operators';
import { createClient } from '../../src/client';
import type { Flag } from '../../src/snapshot/snapshot-types';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { bad, makeFlag, rule } from './flags';

const KEYS = ['control', 'treatment-a', 'treatment-b', 'off'];

describe('variationKeys', () => {
  it('names the served variation, whichever decided it: fallthrough, rule, rollout, off', () => {
    const flag = makeFlag([rule('a', [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }])], { variationKeys: KEYS });
    expect(evaluateFlag(flag, {}, 'u')).toMatchObject({ variation: 0, variationKey: 'control', reason: 'DEFAULT' });
    expect(evaluateFlag(flag, { attributes: { plan: 'pro' } }, 'u')).toMatchObject({ variation: 1, variationKey: 'treatment-a', ruleId: 'a' });
    expect(evaluateFlag({ ...flag, on: false }, {}, 'u')).toMatchObject({ variation: 3, variationKey: 'off', reason: 'DISABLED' });
    const split = evaluateFlag({ ...flag, fallthrough: { rollout: [{ variation: 2, weight: 100_000 }] } }, {}, 'u');
    expect(split).toMatchObject({ variation: 2, variationKey: 'treatment-b', reason: 'SPLIT' });
  });

  it('are only read: a flag without them, or with malformed ones, serves the same value with no key', () => {
    const plain = evaluateFlag(makeFlag(), {}, 'u');
    expect(plain).toEqual({ kind: 'served', value: 'fallthrough', variation: 0, reason: 'DEFAULT' });
    for (const variationKeys of ['control', { 0: 'control' }, [1, 2, 3, 4], [''], [], null, [null, 'x']]) {
      expect(evaluateFlag(makeFlag([], { variationKeys: bad(variationKeys) }), {}, 'u'), JSON.stringify(variationKeys)).toEqual(plain);
    }
  });

  it('reach getDetails, and change nothing else a reader sees (get, getAll, the other details)', async () => {
    const clientOf = (f: Flag) =>
      createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, events: false, persist: false, syncTabs: false, transport: () => new Promise(() => undefined), bootstrap: { schemaVersion: 1, version: 1, environmentId: 'e', flags: { f } } });
    const without = clientOf(makeFlag());
    const named = clientOf(makeFlag([], { variationKeys: KEYS, metadata: { owner: 'growth', ttlDays: 30, temporary: true } }));
    expect(named.getDetails('f')).toEqual({ ...without.getDetails('f'), variationKey: 'control' });
    expect(named.get('f')).toBe(without.get('f'));
    expect(named.getAll()).toEqual(without.getAll());
    await Promise.all([without.close(), named.close()]);
  });
});

describe('the is operator', () => {
  const customerIsFalse = makeFlag([rule('not-customer', [{ kind: 'attribute', attribute: 'customer', op: 'is', values: [false] }])]);

  it('matches a boolean attribute, and nothing else', () => {
    expect(evaluateFlag(customerIsFalse, { attributes: { customer: false } }, 'u')).toMatchObject({ reason: 'TARGETING_MATCH', value: 'rule-a' });
    for (const customer of [true, 'false', 0, null, undefined]) {
      expect(evaluateFlag(customerIsFalse, { attributes: { customer } }, 'u'), String(customer)).toMatchObject({ reason: 'DEFAULT' });
    }
  });

  describe('on a client that predates it (no `is` in its operator table)', () => {
    const is = OPERATORS.is!;
    afterEach(() => {
      OPERATORS.is = is;
    });

    it('the condition is false, negated or not: the rule never matches, the context falls through, the flag still serves', () => {
      delete OPERATORS.is;
      const negated = makeFlag([rule('r', [{ kind: 'attribute', attribute: 'customer', op: 'is', values: [false], negate: true }])]);
      for (const flag of [customerIsFalse, negated]) {
        for (const customer of [true, false]) {
          expect(evaluateFlag(flag, { attributes: { customer } }, 'u')).toEqual({ kind: 'served', value: 'fallthrough', variation: 0, reason: 'DEFAULT' });
        }
      }
    });
  });
});
