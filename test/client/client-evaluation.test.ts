import { describe, expect, it } from 'vitest';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { jsonResponse } from '../helpers/fake-transport';
import { harness, servedHarness } from '../helpers/client-harness';
import { servingFlag, snapshotOf } from '../helpers/snapshots';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

const planRule = (plan: string, variation: number): Flag['rules'][number] => ({
  id: `plan-${plan}`,
  conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: [plan] }],
  serve: { variation },
});

const snapshot: FlagSnapshot = {
  schemaVersion: 1,
  version: 7,
  environmentId: 'production',
  flags: {
    off: servingFlag('on-value', { on: false, variations: ['off-value', 'on-value'] }),
    targeted: { ...servingFlag('everyone'), variations: ['everyone', 'pro', 'enterprise'], fallthrough: { variation: 0 }, rules: [planRule('pro', 1), planRule('enterprise', 2)] },
    split: { ...servingFlag('a'), variations: ['a', 'b'], fallthrough: { rollout: [{ variation: 0, weight: 50_000 }, { variation: 1, weight: 50_000 }] } },
    plain: servingFlag(true),
    broken: servingFlag('x', { offVariation: 5, on: false }),
    typed: servingFlag('a string'),
  },
};

async function ready(options = {}) {
  const h = harness(() => jsonResponse(200, snapshot), options);
  await h.client.ready();
  return h;
}

describe('getDetails: values with reasons', () => {
  it('reports every reason with the variation, rule and version', async () => {
    const { client } = await ready({ context: { userId: 'u1', attributes: { plan: 'pro' } }, defaults: { typed: 0, broken: 'safe' } });
    expect(client.getDetails('off')).toEqual({ key: 'off', value: 'off-value', reason: 'DISABLED', variation: 0, version: 7 });
    expect(client.getDetails('targeted')).toEqual({ key: 'targeted', value: 'pro', reason: 'TARGETING_MATCH', variation: 1, ruleId: 'plan-pro', version: 7 });
    expect(client.getDetails('split')).toMatchObject({ reason: 'SPLIT', version: 7 });
    expect(client.getDetails('plain')).toEqual({ key: 'plain', value: true, reason: 'DEFAULT', variation: 1, version: 7 });
    expect(client.getDetails('broken')).toMatchObject({ value: 'safe', reason: 'ERROR', errorCode: 'PARSE_ERROR' });
    expect(client.getDetails('typed')).toMatchObject({ value: 0, reason: 'ERROR', errorCode: 'TYPE_MISMATCH' });
    expect(client.getDetails('nope', 'fb')).toEqual({ key: 'nope', value: 'fb', reason: 'ERROR', variation: null, version: 7, errorCode: 'FLAG_NOT_FOUND' });
    await client.close();
  });

  it('after a publish that leaves a read flag’s outcome as it was, its details carry the new version', async () => {
    const { client, server } = servedHarness(snapshotOf(1, { kept: 'same', moved: 'before' }));
    await client.ready();
    expect(client.getDetails('kept')).toMatchObject({ value: 'same', reason: 'DEFAULT', version: 1 });
    server.publish(snapshotOf(2, { kept: 'same', moved: 'after' }));
    await client.refresh();
    expect(client.getStatus().version).toBe(2);
    expect(client.getDetails('moved')).toMatchObject({ value: 'after', version: 2 });
    expect(client.getDetails('kept')).toMatchObject({ value: 'same', reason: 'DEFAULT', version: 2 });
    await client.close();
  });

  it('reports PROVIDER_NOT_READY before any snapshot', async () => {
    const { client } = harness(() => 'hang', { defaults: { plain: false } });
    expect(client.getDetails('plain')).toEqual({ key: 'plain', value: false, reason: 'ERROR', variation: null, version: null, errorCode: 'PROVIDER_NOT_READY' });
    await client.close();
  });

  it('is memoised: a second read returns the same details object, computed once per snapshot and context', async () => {
    const { client } = await ready({ context: { attributes: { plan: 'pro' } } });
    const first = client.getDetails('targeted');
    expect(client.getDetails('targeted')).toBe(first);
    client.setContext({ attributes: { plan: 'pro' }, segmentIds: [] });
    expect(client.getDetails('targeted')).toBe(first);
    await client.close();
  });

  it('buckets by userId, else by the anonymous id, stably', async () => {
    const byUser = (await ready({ context: { userId: 'user-42' } })).client;
    const byAnon = (await ready({ anonymousId: 'user-42' })).client;
    expect(byUser.get('split')).toBe(byAnon.get('split'));
    const values = new Set<unknown>();
    for (let i = 0; i < 40; i++) {
      byUser.setContext({ userId: `user-${i}` });
      values.add(byUser.get('split'));
    }
    expect(values).toEqual(new Set(['a', 'b']));
    await byUser.close();
    await byAnon.close();
  });
});

describe('setContext', () => {
  it('re-evaluates and notifies only the keys whose value changed', async () => {
    const { client } = await ready({ context: { userId: 'u1', attributes: { plan: 'free' } } });
    const changes: string[][] = [];
    client.subscribe(({ changed }) => changes.push([...changed]));
    // Notifications cover the flags read: a flag never read has no value anyone holds.
    client.getAll();
    client.setContext({ userId: 'u1', attributes: { plan: 'enterprise' } });
    expect(client.get('targeted')).toBe('enterprise');
    expect(changes).toEqual([['targeted']]);
    client.setContext({ userId: 'u1', attributes: { plan: 'enterprise', country: 'FR' } });
    expect(changes).toHaveLength(1);
    expect(client.getContext()).toEqual({ userId: 'u1', attributes: { plan: 'enterprise', country: 'FR' } });
    await client.close();
  });
});

describe('setOverrides', () => {
  it('wins over the snapshot with reason OVERRIDE, notifies, and clears', async () => {
    const { client } = await ready();
    const changes: string[][] = [];
    client.subscribe(({ changed }) => changes.push([...changed].sort()));
    client.setOverrides({ plain: false, 'not-in-snapshot': 'qa' });
    expect(client.getDetails('plain')).toEqual({ key: 'plain', value: false, reason: 'OVERRIDE', variation: null, version: null });
    expect(client.get('not-in-snapshot')).toBe('qa');
    expect(client.getAll()).toMatchObject({ plain: false, 'not-in-snapshot': 'qa' });
    expect(changes).toEqual([['not-in-snapshot', 'plain']]);
    client.setOverrides({});
    expect(client.get('plain')).toBe(true);
    expect(client.get('not-in-snapshot')).toBeUndefined();
    expect(changes[1]).toEqual(['not-in-snapshot', 'plain']);
    await client.close();
  });
});

describe('setOverrides with odd input', () => {
  it('null, undefined and undefined values clear or skip, never throw', async () => {
    const { client, errors } = harness(() => jsonResponse(200, snapshotOf(1, { a: 'served' })));
    await client.ready();
    client.setOverrides({ a: 'over' });
    expect(client.get('a')).toBe('over');
    client.setOverrides(null as never);
    expect(client.get('a')).toBe('served');
    client.setOverrides({ a: 'over' });
    client.setOverrides(undefined as never);
    expect(client.get('a')).toBe('served');
    client.setOverrides({ a: undefined } as never);
    expect(client.getDetails('a').reason).not.toBe('OVERRIDE');
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a non-object (a string, an array) is reported through onError instead of becoming overrides of keys "0", "1"…', async () => {
    const { client, errors } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 })));
    await client.ready();
    client.setOverrides('on' as never);
    const all = client.getAll();
    await client.close();
    // Before the fix: { 0: 'o', 1: 'n', a: 1 } and no error.
    expect(all).toEqual({ a: 1 });
    expect(errors).toHaveLength(1);
  });

  it('an override of another JSON type than the default does not make a typed get() lie about its type', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { 'new-checkout': true })), { defaults: { 'new-checkout': false } });
    await client.ready();
    // A QA panel that sends strings: 'false' is truthy.
    client.setOverrides({ 'new-checkout': 'false' });
    const served = client.get('new-checkout');
    await client.close();
    expect(typeof served).toBe('boolean');
  });
});
