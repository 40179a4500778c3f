import { afterEach, describe, expect, it } from 'vitest';
import type { FlagsClient } from '../../src/client-types';
import { evaluateFlag } from '../../src/evaluation/index';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { mulberry32 } from '../helpers/prng';

const clients: FlagsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** 'yes' to users whose `plan` is `plan`, else 'no'. */
const byPlan = (plan: string): Flag => ({
  on: true,
  variations: ['no', 'yes'],
  offVariation: 0,
  rules: [{ id: plan, conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: [plan] }], serve: { variation: 1 } }],
  fallthrough: { variation: 0 },
  salt: plan,
  clientSide: true,
});

/** `flag`, counting in `count.n` how many times the evaluator reads it. */
function counted(flag: Flag, count: { n: number }): Flag {
  const copy = { ...flag };
  const on = copy.on;
  Object.defineProperty(copy, 'on', {
    enumerable: true,
    get: () => {
      count.n++;
      return on;
    },
  });
  return copy;
}

async function clientOf(snapshot: FlagSnapshot, context: EvaluationContext = {}) {
  const server = snapshotServer(snapshot);
  const h = harness(server.handler, { context, pollInterval: 0 });
  clients.push(h.client);
  await h.client.ready();
  return { ...h, server };
}

describe('lazy evaluation', () => {
  it('evaluates a flag when it is first read, once per snapshot and context, and setContext only re-evaluates the flags read', async () => {
    const counts = Array.from({ length: 100 }, () => ({ n: 0 }));
    const flags = Object.fromEntries(counts.map((count, i) => [`f${i}`, counted(byPlan(`p${i}`), count)]));
    // A bootstrap is kept as given (a snapshot from the network would be a JSON copy, without the counters).
    const { client } = harness(() => 'hang', { bootstrap: { schemaVersion: 1, version: 1, environmentId: 'production', flags } });
    clients.push(client);
    expect(await client.ready()).toEqual({ status: 'ready', source: 'bootstrap' });
    expect(counts.every((count) => count.n === 0)).toBe(true);

    expect(client.get('f1')).toBe('no');
    client.get('f1');
    client.getDetails('f2');
    expect(counts.map((count) => count.n).slice(0, 4)).toEqual([0, 1, 1, 0]);

    client.setContext({ attributes: { plan: 'p1' } });
    expect(counts.map((count) => count.n).slice(0, 4)).toEqual([0, 2, 2, 0]);
    expect(counts.slice(3).every((count) => count.n === 0)).toBe(true);
    expect(client.get('f1')).toBe('yes');
    expect(counts[1]!.n).toBe(2);
  });

  it('notifies exactly the flags read whose outcome changed, and never serves a stale value', async () => {
    const { client } = await clientOf({ schemaVersion: 1, version: 1, environmentId: 'production', flags: { pro: byPlan('pro'), team: byPlan('team'), unread: byPlan('pro') } });
    const heard: string[][] = [];
    client.subscribe(({ changed }) => heard.push([...changed].sort()));
    client.get('pro');
    client.get('team');
    client.setContext({ attributes: { plan: 'pro' } });
    // `unread` changed too, but nobody holds its value: it is evaluated when read.
    expect(heard).toEqual([['pro']]);
    expect(client.get('unread')).toBe('yes');
    client.setContext({ attributes: { plan: 'pro', country: 'FR' } });
    expect(heard).toHaveLength(1);
    client.setContext({ attributes: { plan: 'team' } });
    expect(heard[1]).toEqual(['pro', 'team', 'unread']);
  });

  it('a flag read while the snapshot lacked it is notified when a snapshot brings it, and one removed when it goes', async () => {
    const { client, server } = await clientOf({ schemaVersion: 1, version: 1, environmentId: 'production', flags: { old: byPlan('x') } });
    const heard: string[][] = [];
    client.subscribe(({ changed }) => heard.push([...changed].sort()));
    expect(client.getDetails('later')).toMatchObject({ errorCode: 'FLAG_NOT_FOUND' });
    client.get('old');
    server.publish({ schemaVersion: 1, version: 2, environmentId: 'production', flags: { later: byPlan('x') } });
    await client.refresh();
    expect(heard).toEqual([['later', 'old']]);
    expect(client.get('later')).toBe('no');
    expect(client.getDetails('old')).toMatchObject({ errorCode: 'FLAG_NOT_FOUND' });
  });

  it('after getAll(), a flag a new snapshot adds is notified, and getAll() keeps its object while nothing changes', async () => {
    const { client, server } = await clientOf({ schemaVersion: 1, version: 1, environmentId: 'production', flags: { a: byPlan('x') } });
    const heard: string[][] = [];
    client.subscribe(({ changed }) => heard.push([...changed].sort()));
    const all = client.getAll();
    expect(all).toEqual({ a: 'no' });
    server.publish({ schemaVersion: 1, version: 2, environmentId: 'production', flags: { a: byPlan('x') } });
    await client.refresh();
    expect(client.getAll()).toBe(all);
    server.publish({ schemaVersion: 1, version: 3, environmentId: 'production', flags: { a: byPlan('x'), b: byPlan('x') } });
    await client.refresh();
    expect(heard.at(-1)).toEqual(['b']);
    expect(client.getAll()).toEqual({ a: 'no', b: 'no' });
  });

  it('keys such as constructor or __proto__ read no prototype', async () => {
    const { client } = await clientOf({ schemaVersion: 1, version: 1, environmentId: 'production', flags: { a: byPlan('x') } });
    expect(client.getDetails('constructor')).toMatchObject({ errorCode: 'FLAG_NOT_FOUND' });
    expect(client.getDetails('__proto__')).toMatchObject({ errorCode: 'FLAG_NOT_FOUND' });
  });

  it('seeded: over random reads, contexts and snapshots, every read equals a fresh evaluation and every notification is exact', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = mulberry32(seed);
      const pick = <T,>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
      const plans = ['a', 'b', 'c', 'd'];
      const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
      let version = 1;
      const randomSnapshot = (): FlagSnapshot => ({
        schemaVersion: 1,
        version: version++,
        environmentId: 'production',
        flags: Object.fromEntries(keys.filter(() => random() < 0.7).map((key) => [key, { ...byPlan(pick(plans)), on: random() < 0.8 }])),
      });
      let snapshot = randomSnapshot();
      let context: EvaluationContext = { attributes: { plan: pick(plans) } };
      const { client, server } = await clientOf(snapshot, context);
      const served = new Map<string, unknown>();
      let heard: Set<string> | undefined;
      client.subscribe(({ changed }) => (heard = new Set(changed)));
      /** The outcome a fresh evaluation gives: what a notification is about (value, variation, reason, rule). */
      const expected = (key: string) => {
        const flag = Object.hasOwn(snapshot.flags, key) ? snapshot.flags[key] : undefined;
        if (!flag) return 'missing';
        const { value, variation, reason, ruleId } = evaluateFlag(flag, context, 'anonymous-test-id') as Record<string, unknown>;
        return JSON.stringify([value, variation, reason, ruleId]);
      };
      const outcome = (key: string) => {
        const details = client.getDetails(key, 'fallback');
        return details.errorCode === 'FLAG_NOT_FOUND' ? 'missing' : JSON.stringify([details.value, details.variation, details.reason, details.ruleId]);
      };
      for (let step = 0; step < 40; step++) {
        const before = new Map(served);
        heard = undefined;
        const roll = random();
        if (roll < 0.5) {
          const key = pick(keys);
          expect(outcome(key), `seed ${seed} step ${step}: ${key}`).toEqual(expected(key));
          served.set(key, expected(key));
          continue;
        }
        if (roll < 0.75) {
          context = { attributes: { plan: pick(plans) } };
          client.setContext(context);
        } else {
          snapshot = randomSnapshot();
          server.publish(snapshot);
          await client.refresh();
        }
        // Exact: the keys read so far whose served value moved, and no other.
        const moved = [...before.keys()].filter((key) => before.get(key) !== expected(key));
        for (const key of before.keys()) served.set(key, expected(key));
        expect([...(heard ?? [])].filter((key) => before.has(key)).sort(), `seed ${seed} step ${step}`).toEqual(moved.sort());
        expect([...(heard ?? [])].every((key) => before.has(key)), `seed ${seed} step ${step}: an unread key was notified`).toBe(true);
      }
      await client.close();
    }
  });
});

describe('the default context', () => {
  it('has the three members the contract names, without a user yet, at createClient and after setContext(undefined)', async () => {
    const { client } = harness(() => 'hang', { persist: false });
    clients.push(client);
    expect(client.getContext()).toStrictEqual({ userId: undefined, attributes: {}, segmentIds: [] });
    expect(Object.keys(client.getContext())).toEqual(['userId', 'attributes', 'segmentIds']);
    client.setContext({ userId: 'u' });
    client.setContext(undefined as never);
    expect(client.getContext()).toStrictEqual({ userId: undefined, attributes: {}, segmentIds: [] });
  });
});
