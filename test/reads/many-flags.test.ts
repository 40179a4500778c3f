import { afterEach, describe, expect, it } from 'vitest';
import type { FlagsClient } from '../../src/client-types';
import { evaluateFlag } from '../../src/evaluation/index';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { servedHarness } from '../helpers/client-harness';

// The re-evaluation a context or snapshot change makes when every flag has been read (the
// client updates its flag values in place), and getAll()'s object across such changes.

const clients: FlagsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const HALF = { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] };

/** A country rule serving variation 2, over a 50/50 fallthrough; every fifth flag is off. */
const experiment = (i: number): Flag => ({
  on: i % 5 !== 0,
  variations: ['control', 'treatment', 'local'],
  offVariation: 0,
  rules: [{ id: `market-${i}`, conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values: [i % 2 ? 'FR' : 'DE'] }], serve: { variation: 2 } }],
  fallthrough: HALF,
  salt: `experiment-${i}`,
  clientSide: true,
});

const FLAGS = 300;
const keys = Array.from({ length: FLAGS }, (_, i) => `experiment-${i}`);
const snapshotOf = (version: number, flag = experiment): FlagSnapshot => ({
  schemaVersion: 1,
  version,
  environmentId: 'production',
  flags: Object.fromEntries(keys.map((key, i) => [key, flag(i)])),
});

async function allRead(context: EvaluationContext) {
  const h = servedHarness(snapshotOf(1), { context, pollInterval: 0 });
  clients.push(h.client);
  await h.client.ready();
  const heard: string[][] = [];
  h.client.subscribe(({ changed }) => heard.push([...changed]));
  return { ...h, heard, all: h.client.getAll() };
}

/** What a fresh evaluation serves `key` of `snapshot` for `context`. */
const fresh = (snapshot: FlagSnapshot, key: string, context: EvaluationContext) => evaluateFlag(snapshot.flags[key]!, context, context.userId ?? 'anonymous-test-id');

describe('many flags, every one read', () => {
  it('setContext: each read equals a fresh evaluation, the change set is exactly the flags whose outcome moved, the others keep their details', async () => {
    const first = { userId: 'user-1', attributes: { country: 'FR' } };
    const { client, heard } = await allRead(first);
    const before = new Map(keys.map((key) => [key, client.getDetails(key)]));
    const second = { userId: 'user-2', attributes: { country: 'DE' } };
    client.setContext(second);
    const snapshot = snapshotOf(1);
    const moved = keys.filter((key) => {
      const [a, b] = [fresh(snapshot, key, first), fresh(snapshot, key, second)] as Array<Record<string, unknown>>;
      return a!.value !== b!.value || a!.reason !== b!.reason || a!.variation !== b!.variation || a!.ruleId !== b!.ruleId;
    });
    // Enough of both kinds for the comparison to mean something.
    expect(moved.length).toBeGreaterThan(FLAGS / 4);
    expect(moved.length).toBeLessThan(FLAGS);
    expect(heard).toEqual([moved]);
    for (const key of keys) {
      const { kind, ...outcome } = fresh(snapshot, key, second);
      expect(kind).toBe('served');
      expect(client.getDetails(key)).toEqual({ key, version: 1, ...outcome });
      if (!moved.includes(key)) expect(client.getDetails(key)).toBe(before.get(key));
      expect(Object.isFrozen(client.getDetails(key))).toBe(true);
    }
  });

  it('a new snapshot version: the same outcomes are not notified and carry the new version; a flag it adds is', async () => {
    const context = { userId: 'user-1', attributes: { country: 'FR' } };
    const { client, server, heard, all } = await allRead(context);
    server.publish({ ...snapshotOf(2), flags: { ...snapshotOf(2).flags, added: experiment(1) } });
    await client.refresh();
    expect(heard).toEqual([['added']]);
    expect(client.getDetails(keys[7]!)).toMatchObject({ version: 2 });
    expect(client.getAll()).not.toBe(all);
    expect(client.getAll()).toEqual({ ...all, added: client.get('added') });
  });

  it('getAll() is one object while nothing it holds changes, and a new one when a value does', async () => {
    const { client, server, all } = await allRead({ userId: 'user-1', attributes: { country: 'FR' } });
    expect(Object.keys(all)).toHaveLength(FLAGS);
    expect(client.getAll()).toBe(all);
    // Another context with the same values everywhere (the same userId buckets the same way; the rule targets neither).
    client.setContext({ userId: 'user-1', attributes: { country: 'FR', plan: 'pro' } });
    expect(client.getAll()).toBe(all);
    // A new version with the same values.
    server.publish(snapshotOf(2));
    await client.refresh();
    expect(client.getAll()).toBe(all);
    // A context that moves values.
    client.setContext({ userId: 'user-2', attributes: { country: 'DE' } });
    const afterContext = client.getAll();
    expect(afterContext).not.toBe(all);
    expect(afterContext[keys[1]!]).toBe(client.get(keys[1]!));
    expect(client.getAll()).toBe(afterContext);
    // An override.
    client.setOverrides({ [keys[3]!]: 'mine' });
    const afterOverride = client.getAll();
    expect(afterOverride).not.toBe(afterContext);
    expect(afterOverride[keys[3]!]).toBe('mine');
    // A snapshot that changes one flag's value for everyone.
    server.publish(snapshotOf(3, (i) => (i === 4 ? { ...experiment(i), on: false, offVariation: 1 } : experiment(i))));
    await client.refresh();
    const afterSnapshot = client.getAll();
    expect(afterSnapshot).not.toBe(afterOverride);
    expect(afterSnapshot[keys[4]!]).toBe('treatment');
    expect(Object.isFrozen(afterSnapshot)).toBe(true);
  });
});
