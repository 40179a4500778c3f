// Publishing a large environment on Redis: a one-flag edit is stored and announced as that one
// flag (applied to the version before, every other flag shared), with a whole version every
// EDITS_BETWEEN_WHOLE_VERSIONS edits; every instance, one started later included, serves the
// same bytes; gzip bodies are taken as in memory.
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { demoConfig } from '../../../reference-server/index';
import type { ReferenceServer, ReferenceServerOptions } from '../../../reference-server/index';
import { EDITS_BETWEEN_WHOLE_VERSIONS } from '../../../reference-server/stores/redis-control-store';
import { snapshotJson } from '../../../reference-server/stores/snapshot-json';
import { redisKeys } from '../../../reference-server/stores/redis-keys';
import { readCurrent, readSnapshot } from '../../../reference-server/stores/redis-reads';
import { largeFlagKey, largeSnapshot } from '../../../scripts/large-environment.mjs';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { waitFor } from '../../helpers/wait-for';
import { admin, call, DEMO, errorOf, useServers } from '../helpers';
import { rawFlagMembers } from '../routes/raw-flags';
import { freshPrefix, redisNeed, useRedisProcess } from './engines-fixture';

const FLAGS = 300;

describeWithBinaries('publishing a large environment on Redis', [redisNeed], () => {
  const redis = useRedisProcess();
  const servers = useServers();
  const probes: Redis[] = [];
  afterEach(() => {
    for (const probe of probes.splice(0)) probe.disconnect();
  });

  const snapshots = (server: ReferenceServer) => server.stores.environments.get('production')!.kv;
  const snapshotBytes = (server: ReferenceServer, version: number) => snapshotJson(snapshots(server).snapshots.get(version)!).toString();
  const body = async (server: ReferenceServer) => (await call(server, '/sdk/v1/snapshot', { key: DEMO.prodServerKey })).text();

  /** Two instances on one prefix, the large snapshot published through A as version 2 (gzip), and B at it. */
  async function twoInstances(options: Partial<ReferenceServerOptions> = {}) {
    const prefix = freshPrefix();
    const shared = { redis: redis.url, redisPrefix: prefix, config: { ...demoConfig(), adminToken: DEMO.adminToken }, allowDemoCredentials: true, ...options };
    const a = await servers.start(shared);
    const b = await servers.start(shared);
    const response = await fetch(`${a.baseUrl}/admin/v1/environments/production/snapshot`, {
      method: 'PUT',
      body: new Uint8Array(gzipSync(JSON.stringify(largeSnapshot(FLAGS)))),
      headers: { authorization: `Bearer ${a.adminToken}`, 'content-encoding': 'gzip' },
    });
    expect(await response.json()).toEqual({ environmentId: 'production', version: 2 });
    await waitFor(() => snapshots(b).current === 2, 5000, 'B at version 2');
    const probe = new Redis(redis.url);
    probes.push(probe);
    const storedJson = (version: number) => probe.hget(redisKeys(prefix).snapshots('production'), String(version));
    const editJson = (version: number) => probe.hget(redisKeys(prefix).edits('production'), String(version));
    return { a, b, storedJson, editJson, shared };
  }

  it("applies A's one-flag edit to B's copy: every other flag object shared, every other flag's bytes the same", async () => {
    const { a, b, editJson, storedJson, shared } = await twoInstances();
    const before = await body(b);
    const key = largeFlagKey(42);
    expect((await admin(a, 'PATCH', `/environments/production/flags/${key}`, { on: false })).status).toBe(200);
    await waitFor(() => snapshots(b).current === 3, 5000, 'B at version 3');
    const [v2, v3] = [snapshots(b).snapshots.get(2)!, snapshots(b).snapshots.get(3)!];
    for (const other of Object.keys(v2.flags)) if (other !== key) expect(v3.flags[other], other).toBe(v2.flags[other]);
    expect(v3.flags[key]).toMatchObject({ on: false });

    const [servedByA, servedByB] = [await body(a), await body(b)];
    expect(servedByB).toBe(servedByA);
    const flagsBefore = rawFlagMembers(before);
    const flagsAfter = rawFlagMembers(servedByB);
    expect([...flagsAfter.keys()]).toEqual([...flagsBefore.keys()]);
    for (const [other, raw] of flagsBefore) if (other !== key) expect(flagsAfter.get(other), other).toBe(raw);
    // Redis holds version 3 as the edit alone; an instance started now builds it and serves the same bytes.
    expect(await storedJson(3)).toBeNull();
    expect(JSON.parse((await editJson(3))!)).toEqual({ key, flag: v3.flags[key] });
    const c = await servers.start(shared);
    expect(await body(c)).toBe(servedByA);
    expect(snapshots(c).snapshots.get(3)!.flags[largeFlagKey(1)]).toBe(snapshots(c).snapshots.get(2)!.flags[largeFlagKey(1)]);
  });

  it(`stores a whole version after ${EDITS_BETWEEN_WHOLE_VERSIONS} edits, keeps what the oldest kept version is built on, and reads any kept version`, async () => {
    const { a, b, storedJson, editJson, shared } = await twoInstances({ limits: { snapshotVersions: 10 } });
    const edits = EDITS_BETWEEN_WHOLE_VERSIONS + 12;
    for (let i = 0; i < edits; i++) await admin(a, 'PATCH', `/environments/production/flags/${largeFlagKey(i)}`, { on: i % 2 === 0 });
    const last = 2 + edits;
    expect(snapshots(a).current).toBe(last);
    // Version 2 is whole (the PUT); the edits after it are stored alone until the run is full.
    const checkpoint = 2 + EDITS_BETWEEN_WHOLE_VERSIONS + 1;
    expect(await storedJson(checkpoint)).not.toBeNull();
    expect(await editJson(checkpoint)).toBeNull();
    expect(await editJson(checkpoint + 1)).not.toBeNull();
    // The oldest of the 10 kept versions is built on the checkpoint: nothing older is left.
    expect(last - 9).toBeGreaterThan(checkpoint);
    expect(await editJson(checkpoint - 1)).toBeNull();
    expect(await storedJson(2)).toBeNull();
    await waitFor(() => snapshots(b).current === last, 5000, 'B at the last version');
    const c = await servers.start(shared);
    expect(snapshots(c).current).toBe(last);
    expect(await body(c)).toBe(await body(a));
    for (let version = last - 9; version <= last; version++) {
      expect(JSON.parse(snapshotBytes(c, version)), String(version)).toEqual(JSON.parse(snapshotBytes(a, version)));
    }
    // A read of one version (a conflict's re-read, a missed announcement) builds it the same way.
    const k = redisKeys(shared.redisPrefix);
    for (const version of [last - 9, last - 4, last]) {
      expect(snapshotJson((await readSnapshot(probes[0]!, k, 'production', version))!).toString(), String(version)).toBe(snapshotBytes(a, version));
    }
    expect(snapshotJson((await readCurrent(probes[0]!, k, 'production'))!).toString()).toBe(snapshotBytes(a, last));
    expect(await readSnapshot(probes[0]!, k, 'production', checkpoint - 1)).toBeUndefined();
  });

  it('gives B a DELETE and a new flag the same way, and a whole publish read from Redis', async () => {
    const { a, b } = await twoInstances();
    await admin(a, 'DELETE', `/environments/production/flags/${largeFlagKey(7)}`);
    await admin(a, 'PUT', '/environments/production/flags/added', { ...largeSnapshot(1).flags[largeFlagKey(0)], salt: 'added' });
    await waitFor(() => snapshots(b).current === 4, 5000, 'B at version 4');
    const v4 = snapshots(b).snapshots.get(4)!;
    expect(Object.hasOwn(v4.flags, largeFlagKey(7))).toBe(false);
    expect(v4.flags.added).toMatchObject({ salt: 'added' });
    expect(v4.flags[largeFlagKey(8)]).toBe(snapshots(b).snapshots.get(2)!.flags[largeFlagKey(8)]);
    expect(await body(b)).toBe(await body(a));

    expect((await admin(a, 'PUT', '/environments/production/snapshot', largeSnapshot(5))).status).toBe(200);
    await waitFor(() => snapshots(b).current === 5, 5000, 'B at version 5');
    expect(Object.keys(snapshots(b).snapshots.get(5)!.flags)).toHaveLength(5);
    expect(await body(b)).toBe(await body(a));
  });

  it('refuses a flag that breaks its references on Redis too: nothing stored, nothing announced', async () => {
    const { a, b, storedJson } = await twoInstances();
    const response = await admin(a, 'PATCH', `/environments/production/flags/${largeFlagKey(3)}`, { fallthrough: { variation: 9 } });
    expect(await errorOf(response)).toEqual({
      code: 'invalid_request',
      path: 'fallthrough.variation',
      message: 'fallthrough.variation must be a variation index below 2 (the flag has 2 variation(s)), not 9',
    });
    expect(await storedJson(3)).toBeNull();
    expect(snapshots(a).current).toBe(2);
    expect(snapshots(b).current).toBe(2);
  });
});
