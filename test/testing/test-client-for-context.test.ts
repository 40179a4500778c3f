import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { FlagsView } from '../../src/client-types';
import { evaluateFlag } from '../../src/evaluation/index';
import { createTestClient } from '../../testing/index';
import { bannerFlag, targetedSnapshot } from './fixtures';
import { forContext } from '../../src/index';

describe('forContext(context)', () => {
  it("evaluates the flags for the view's context, leaving the client's context, values and listeners alone", () => {
    const client = createTestClient({ flags: {}, context: { attributes: { plan: 'free' } } });
    client.setSnapshot(targetedSnapshot(3));
    const [context, details, all] = [client.getContext(), client.getDetails('banner'), client.getAll()];
    const listener = vi.fn();
    client.subscribe(listener);
    const viewContext = { userId: 'ana', attributes: { plan: 'pro' } };
    const view = forContext(client, viewContext);
    expect(view.getContext()).toBe(viewContext);
    expect(view.getDetails('banner')).toEqual({ key: 'banner', value: 'pro', reason: 'TARGETING_MATCH', variation: 1, ruleId: 'plan-pro', version: 3 });
    expect(view.getAll()).toEqual({ banner: 'pro', theme: 'dark' });
    expect(view.getAll()).toBe(view.getAll());
    expect(client.getContext()).toBe(context);
    expect(client.getDetails('banner')).toBe(details);
    expect(client.getAll()).toBe(all);
    expect(listener).not.toHaveBeenCalled();
  });

  it('is typed from the flags, like the client', () => {
    const client = createTestClient({ flags: { theme: 'dark', 'new-checkout': false } });
    const view = forContext(client, { userId: 'ana' });
    expectTypeOf(view).toEqualTypeOf<FlagsView<{ theme: string; 'new-checkout': boolean }>>();
    expect(view.get('theme')).toBe('dark');
    expect(view.get('unknown', 'fallback')).toBe('fallback');
  });

  it('reads the flags and overrides the client serves when it is made; later changes are for later views', () => {
    const client = createTestClient({ flags: { a: 1, b: 2 } });
    client.setOverrides({ b: 20 });
    const view = forContext(client, { userId: 'ana' });
    client.set('a', 10);
    client.setOverrides({});
    client.setSnapshot(targetedSnapshot(9));
    expect(view.getAll()).toEqual({ a: 1, b: 20 });
    expect(view.getDetails('b')).toMatchObject({ value: 20, reason: 'OVERRIDE' });
    expect(forContext(client, { userId: 'ana' }).getAll()).toEqual({ banner: 'everyone', theme: 'dark' });
  });

  it("buckets rollouts by the view's userId, and without a context has the empty one", () => {
    const rollout = { ...bannerFlag, rules: [], fallthrough: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] } };
    const client = createTestClient({ flags: {}, context: { userId: 'client-user' } });
    client.setSnapshot({ ...targetedSnapshot(1), flags: { rollout } });
    const served = new Set<unknown>();
    for (const userId of ['ana', 'bo', 'cy', 'di', 'ed', 'flo']) {
      const { kind, ...expected } = evaluateFlag(rollout, { userId }, userId);
      expect(forContext(client, { userId }).getDetails('rollout')).toEqual({ key: 'rollout', ...expected, version: 1 });
      served.add(forContext(client, { userId }).get('rollout'));
    }
    expect(served).toEqual(new Set(['everyone', 'pro']));
    expect(forContext(client, undefined as never).getContext()).toEqual({ userId: undefined, attributes: {}, segmentIds: [] });
  });

  it('answers after close(), from what the client served', async () => {
    const client = createTestClient({ flags: { a: 1 } });
    await client.close();
    expect(forContext(client, { userId: 'ana' }).get('a')).toBe(1);
  });
});
