// Instances of one deployment on a real Redis: they list each other with their open streams,
// one that closes leaves the listing at once, one that is killed leaves it after the TTL.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { Redis } from 'ioredis';
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { InstanceEntry, ReferenceServer } from '../../../reference-server/index';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { demoConfig } from '../../../reference-server/index';
import { admin, DEMO, sleep, useServers, withTimeout } from '../helpers';
import { freshPrefix, redisNeed, useRedisProcess } from './engines-fixture';

const TTL_MS = 600;
const root = resolve(import.meta.dirname, '../../..');
const outfile = join(root, 'node_modules', '.cache', 'flagplane-instance-process', 'instance.mjs');

async function instances(server: ReferenceServer): Promise<InstanceEntry[]> {
  const response = await admin(server, 'GET', '/instances');
  expect(response.status).toBe(200);
  return ((await response.json()) as { instances: InstanceEntry[] }).instances;
}

const streamsById = (entries: InstanceEntry[]) => Object.fromEntries(entries.map((entry) => [entry.id, entry.streams]));

describeWithBinaries('GET /admin/v1/instances on Redis', [redisNeed], () => {
  const redis = useRedisProcess();
  const servers = useServers();
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  beforeAll(async () => {
    await build({ entryPoints: [join(root, 'test/reference-server/stores/instance-process.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['ws', 'ioredis', 'pg'], logLevel: 'silent' });
  });

  const deployment = () => {
    const shared = { redis: redis.url, redisPrefix: freshPrefix(), instanceTtlMs: TTL_MS, config: { ...demoConfig(), adminToken: DEMO.adminToken } };
    return { ...shared, start: (instanceId: string, onInternalError?: (error: unknown) => void) => servers.start({ allowDemoCredentials: true, ...shared, instanceId, ...(onInternalError && { onInternalError }) }) };
  };

  it('lists both instances of a deployment with their open streams, each answering with its own header', async () => {
    const plane = deployment();
    const a = await plane.start('instance-a');
    const b = await plane.start('instance-b');
    for (let i = 0; i < 3; i++) await servers.subscribe(a, DEMO.prodClientKey, 'production', null);
    // B reads A's count from A's latest heartbeat (every TTL / 3).
    let seen: InstanceEntry[] = [];
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline) {
      seen = await instances(b);
      if (streamsById(seen)['instance-a'] === 3) break;
      await sleep(50);
    }
    expect(streamsById(seen)).toEqual({ 'instance-a': 3, 'instance-b': 0 });
    expect(seen.map((entry) => entry.id)).toEqual(['instance-a', 'instance-b']);
    for (const entry of seen) {
      expect(Date.parse(entry.startedAt)).toBeLessThanOrEqual(Date.parse(entry.lastSeen));
      expect(Date.now() - Date.parse(entry.lastSeen)).toBeLessThan(TTL_MS + 1000);
    }
    // A lists its own streams as they are now, not at its last heartbeat.
    expect(streamsById(await instances(a))).toEqual({ 'instance-a': 3, 'instance-b': 0 });
    expect((await admin(a, 'GET', '/instances')).headers.get('flagplane-instance')).toBe('instance-a');
    expect((await admin(b, 'GET', '/instances')).headers.get('flagplane-instance')).toBe('instance-b');
  });

  it('drops an instance that closes at once, and its heartbeat stays stopped', async () => {
    const plane = deployment();
    const errorsOfA: unknown[] = [];
    const a = await plane.start('closing-a', (error) => errorsOfA.push(error));
    const b = await plane.start('closing-b');
    expect((await instances(b)).map((entry) => entry.id)).toEqual(['closing-a', 'closing-b']);
    await a.close();
    expect((await instances(b)).map((entry) => entry.id)).toEqual(['closing-b']);
    const probe = new Redis(redis.url);
    try {
      // Three heartbeat intervals later, nothing of A came back, and no beat of A ran (on its closed connection).
      await sleep(TTL_MS);
      expect(errorsOfA).toEqual([]);
      expect(await probe.hexists(`${plane.redisPrefix}instances`, 'closing-a')).toBe(0);
      expect(await probe.zscore(`${plane.redisPrefix}instances:seen`, 'closing-a')).toBeNull();
      expect(await probe.hexists(`${plane.redisPrefix}instances`, 'closing-b')).toBe(1);
    } finally {
      probe.disconnect();
    }
  });

  it('drops a killed instance (no deregistration) once its TTL passed, and removes its entry', async () => {
    const plane = deployment();
    const b = await plane.start('survivor');
    const child = spawn(process.execPath, [outfile, JSON.stringify({ allowDemoCredentials: true, redis: plane.redis, redisPrefix: plane.redisPrefix, instanceTtlMs: TTL_MS, instanceId: 'killed', config: plane.config })], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    await withTimeout(new Promise((resolveLine) => child.stdout!.once('data', resolveLine)), 10_000, 'the child instance');
    expect((await instances(b)).map((entry) => entry.id)).toEqual(['survivor', 'killed']);
    child.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((resolveExit) => child.once('exit', resolveExit));
    let ids = (await instances(b)).map((entry) => entry.id);
    while (ids.includes('killed')) {
      expect(Date.now() - killedAt).toBeLessThan(TTL_MS + 1000);
      await sleep(50);
      ids = (await instances(b)).map((entry) => entry.id);
    }
    expect(ids).toEqual(['survivor']);
    const probe = new Redis(redis.url);
    try {
      expect(await probe.hkeys(`${plane.redisPrefix}instances`)).toEqual(['survivor']);
    } finally {
      probe.disconnect();
    }
  });
});
