// One contract for the control store (environments, snapshots with `current`, keys with their
// revocations, traits), run against memory and Redis.
import { afterEach, describe, expect, it } from 'vitest';
import type { ControlChange, ControlSeed, ControlStore } from '../../../reference-server/stores/contracts';
import { createMemoryControlStore } from '../../../reference-server/stores/memory-control-store';
import { openRedisControlStore } from '../../../reference-server/stores/redis-control-store';
import type { FlagSnapshot } from '../../../src/snapshot/snapshot-types';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { waitFor } from '../../helpers/wait-for';
import { freshPrefix, redisNeed, useRedisProcess } from './engines-fixture';

const KEY = 'svc_sdk_client_contract_0001';
const SERVER_KEY = 'svc_sdk_server_contract_0001';

function snapshot(environmentId: string, version: number, flags: Record<string, unknown> = {}): FlagSnapshot {
  return { schemaVersion: 1, environmentId, version, flags: flags as FlagSnapshot['flags'] };
}

const SEED: ControlSeed = {
  environments: [
    { id: 'production', kind: 'production', snapshot: snapshot('production', 3, { a: { on: true } }) },
    { id: 'staging', kind: 'staging', snapshot: snapshot('staging', 1) },
  ],
  keys: [
    { key: KEY, kind: 'client', environmentId: 'production' },
    { key: SERVER_KEY, kind: 'server', environmentId: 'staging' },
  ],
  traits: [{ environmentId: 'production', userId: 'u-1', traits: { plan: 'pro' } }],
};

const draft = (environmentId: string, flags: Record<string, unknown> = {}) => {
  const { version: _version, ...rest } = snapshot(environmentId, 0, flags);
  return rest;
};

interface Engine {
  /** Opens a store; the same `name` within one test opens the same data. */
  open(name?: string): Promise<ControlStore>;
}

function controlContract(engine: () => Engine, shared: boolean): void {
  const opened: ControlStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  const open = async (name?: string) => {
    const store = await engine().open(name);
    opened.push(store);
    return store;
  };

  it('is seeded once: a second seed changes nothing, so a revoked seed key stays revoked', async () => {
    const store = await open();
    expect(await store.seedIfEmpty(SEED)).toBe(true);
    expect(await store.revokeKey(KEY)).toBe(true);
    expect(await store.seedIfEmpty({ ...SEED, environments: [{ id: 'production', kind: 'production', snapshot: snapshot('production', 9) }] })).toBe(false);
    const state = await store.load();
    expect(state.environments.map(({ id, kind, current }) => ({ id, kind, current }))).toEqual([
      { id: 'production', kind: 'production', current: 3 },
      { id: 'staging', kind: 'staging', current: 1 },
    ]);
    expect(state.environments[0]?.snapshots).toEqual([snapshot('production', 3, { a: { on: true } })]);
    expect(state.keys.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: KEY, kind: 'client', environmentId: 'production', revoked: true },
      { key: SERVER_KEY, kind: 'server', environmentId: 'staging', revoked: false },
    ]);
    expect(state.traits).toEqual([{ environmentId: 'production', userId: 'u-1', traits: { plan: 'pro' } }]);
  });

  it('allocates one version per publish, concurrent ones included, and keeps every snapshot', async () => {
    const store = await open();
    await store.seedIfEmpty(SEED);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.publish('production', draft('production', { n: { on: true, i } }))));
    const versions = outcomes.map((outcome) => (outcome.kind === 'published' ? outcome.snapshot.version : -1));
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 4));
    const last = await store.current('production');
    expect(last?.version).toBe(23);
    const state = await store.load();
    expect(state.environments[0]?.snapshots.map((s) => s.version)).toEqual([3, ...Array.from({ length: 20 }, (_, i) => i + 4)]);
    expect(state.environments[1]?.current).toBe(1);
  });

  it('stores a snapshot exactly as published: numbers, text and nesting survive', async () => {
    const store = await open();
    await store.seedIfEmpty(SEED);
    const flags = { exact: { on: true, values: [0.1 + 0.2, 2 ** 53 - 1, -1e-7, 1e21], text: 'zß水🚀"\\', deep: { a: [{ b: null }] } } };
    const outcome = await store.publish('production', { ...draft('production', flags), extra: 'kept' } as never);
    expect(outcome).toEqual({ kind: 'published', snapshot: { ...snapshot('production', 4, flags), extra: 'kept' } });
    expect(await store.current('production')).toEqual({ ...snapshot('production', 4, flags), extra: 'kept' });
  });

  it('publishes based on a version only while it is current, and refuses an unknown environment', async () => {
    const store = await open();
    await store.seedIfEmpty(SEED);
    expect(await store.publish('production', draft('production'), 3)).toMatchObject({ kind: 'published', snapshot: { version: 4 } });
    expect(await store.publish('production', draft('production'), 3)).toEqual({ kind: 'conflict', current: 4 });
    expect(await store.publish('qa', draft('qa'))).toEqual({ kind: 'unknown-environment' });
    expect(await store.current('qa')).toBeUndefined();
  });

  it('adds a key once, revokes known keys only, and replaces traits', async () => {
    const store = await open();
    await store.seedIfEmpty(SEED);
    const record = { key: 'svc_sdk_server_contract_0002', kind: 'server' as const, environmentId: 'production' };
    expect(await store.addKey(record)).toBe(true);
    expect(await store.addKey(record)).toBe(false);
    expect(await store.revokeKey('svc_sdk_server_never_issued_01')).toBe(false);
    expect(await store.revokeKey(record.key)).toBe(true);
    await store.setTraits('production', 'u-1', { plan: 'free', seats: 2 });
    await store.setTraits('staging', 'u-2', {});
    const state = await store.load();
    expect(state.keys.find((k) => k.key === record.key)).toEqual({ ...record, revoked: true });
    expect(state.traits.sort((a, b) => a.userId.localeCompare(b.userId))).toEqual([
      { environmentId: 'production', userId: 'u-1', traits: { plan: 'free', seats: 2 } },
      { environmentId: 'staging', userId: 'u-2', traits: {} },
    ]);
  });

  if (!shared) return;

  it('announces each change to the other stores on the same data, in order, and not to its own', async () => {
    const a = await open('shared');
    const b = await open('shared');
    const elsewhere = await open('other');
    await a.seedIfEmpty(SEED);
    const heardByA: ControlChange[] = [];
    const heardByB: ControlChange[] = [];
    const heardElsewhere: ControlChange[] = [];
    a.subscribe((change) => heardByA.push(change));
    b.subscribe((change) => heardByB.push(change));
    elsewhere.subscribe((change) => heardElsewhere.push(change));
    for (let i = 0; i < 5; i++) await a.publish('production', draft('production', { i: { on: true, i } }));
    await a.addKey({ key: 'svc_sdk_client_contract_0003', kind: 'client', environmentId: 'staging' });
    await a.revokeKey(KEY);
    await a.setTraits('staging', 'u-9', { beta: true });
    await a.announceResync('staging');
    await waitFor(() => heardByB.length === 9);
    expect(heardByB.slice(0, 5).map((change) => change.kind === 'published' && change.snapshot.version)).toEqual([4, 5, 6, 7, 8]);
    expect(heardByB[4]).toEqual({ kind: 'published', environmentId: 'production', snapshot: snapshot('production', 8, { i: { on: true, i: 4 } }) });
    expect(heardByB.slice(5)).toEqual([
      { kind: 'key-added', record: { key: 'svc_sdk_client_contract_0003', kind: 'client', environmentId: 'staging' } },
      { kind: 'key-revoked', key: KEY },
      { kind: 'traits-set', environmentId: 'staging', userId: 'u-9', traits: { beta: true } },
      { kind: 'resync', environmentId: 'staging' },
    ]);
    expect(heardByA).toEqual([]);
    expect(heardElsewhere).toEqual([]);
    expect(await elsewhere.seedIfEmpty(SEED)).toBe(true);
  });
}

describe('control store contract: memory', () => {
  controlContract(() => ({ open: async () => createMemoryControlStore() }), false);
});

describeWithBinaries('control store contract: Redis', [redisNeed], () => {
  const redis = useRedisProcess();
  let prefixes = new Map<string, string>();
  afterEach(() => {
    prefixes = new Map();
  });
  controlContract(
    () => ({
      open: async (name = `unnamed-${prefixes.size}`) => {
        const prefix = prefixes.get(name) ?? freshPrefix();
        prefixes.set(name, prefix);
        return openRedisControlStore({ url: redis.url, prefix });
      },
    }),
    true,
  );
});
