import { describe, expect, it } from 'vitest';
import type { FlagsClient } from 'flagplane';
import { createTestClient } from 'flagplane/testing';

// The app code under test: it reads flags from whatever client it is given.
function checkoutRoute(flags: FlagsClient): string {
  return flags.get('new-checkout', false) ? '/checkout/v2' : '/checkout';
}

describe('checkoutRoute', () => {
  it('follows the new-checkout flag', () => {
    const flags = createTestClient({ flags: { 'new-checkout': false } });
    expect(checkoutRoute(flags)).toBe('/checkout');

    flags.set('new-checkout', true);
    expect(checkoutRoute(flags)).toBe('/checkout/v2');
  });

  it('sends pro users to the new checkout when the rule says so', () => {
    const flags = createTestClient({ flags: {}, context: { userId: 'ana', attributes: { plan: 'pro' } } });
    flags.setSnapshot({
      schemaVersion: 1,
      version: 7,
      environmentId: 'test',
      flags: {
        'new-checkout': {
          on: true,
          variations: [false, true],
          offVariation: 0,
          rules: [{ id: 'pro', conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variation: 1 } }],
          fallthrough: { variation: 0 },
          salt: 'new-checkout',
          clientSide: true,
        },
      },
    });
    expect(checkoutRoute(flags)).toBe('/checkout/v2');

    flags.setContext({ userId: 'bo', attributes: { plan: 'free' } });
    expect(checkoutRoute(flags)).toBe('/checkout');
  });

  it('tells subscribers which flag changed', () => {
    const flags = createTestClient({ flags: { 'new-checkout': false, theme: 'dark' } });
    const heard: string[][] = [];
    flags.subscribe(({ changed }) => heard.push([...changed]));

    flags.set('theme', 'light');
    flags.set('theme', 'light'); // the same value: no change, no notification
    expect(heard).toEqual([['theme']]);
  });
});
