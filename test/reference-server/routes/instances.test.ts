// The instance that answered, in memory: its id in diagnostics, in the admin responses' header,
// and as the one entry of GET /admin/v1/instances.
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../../reference-server/index';
import { admin, call, DEMO, useServers } from '../helpers';

const servers = useServers();

describe('the instance id', () => {
  it('defaults to hostname-pid-random, different for each start', async () => {
    const a = await servers.start();
    const b = await servers.start();
    expect(a.instanceId).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-${process.pid}-[0-9a-f]{6}$`));
    expect(b.instanceId).not.toBe(a.instanceId);
  });

  it('refuses an id that cannot go into a header', async () => {
    for (const instanceId of ['', 'has space', 'é', 'x'.repeat(129)]) {
      await expect(startReferenceServer({ instanceId })).rejects.toThrow(RangeError);
    }
  });

  it('names the instance on every admin response, refused or unknown ones included, and on no other', async () => {
    const server = await servers.start({ instanceId: 'eu-1' });
    expect((await admin(server, 'GET', '/keys')).headers.get('flagplane-instance')).toBe('eu-1');
    expect((await admin(server, 'GET', '/nothing-here')).headers.get('flagplane-instance')).toBe('eu-1');
    const refused = await call(server, '/admin/v1/keys', { key: 'wrong-token' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('flagplane-instance')).toBe('eu-1');
    expect((await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).headers.get('flagplane-instance')).toBeNull();
    expect((await fetch(`${server.baseUrl}/readyz`)).headers.get('flagplane-instance')).toBeNull();
  });
});

describe('in memory', () => {
  it('GET /admin/v1/diagnostics and /admin/v1/instances name this instance with its open streams', async () => {
    const before = Date.now();
    const server = await servers.start({ instanceId: 'solo' });
    await servers.subscribe(server, DEMO.prodClientKey, 'production', null);
    await servers.subscribe(server, DEMO.stagingClientKey, 'staging', null);

    const diagnostics = (await (await admin(server, 'GET', '/diagnostics')).json()) as { instance: { id: string; startedAt: string; streams: number } };
    expect(diagnostics.instance).toEqual({ id: 'solo', startedAt: expect.any(String), streams: 2 });
    expect(Date.parse(diagnostics.instance.startedAt)).toBeGreaterThanOrEqual(before - 1000);

    const listed = (await (await admin(server, 'GET', '/instances')).json()) as { instances: Array<Record<string, unknown>> };
    expect(listed.instances).toEqual([{ id: 'solo', startedAt: diagnostics.instance.startedAt, lastSeen: expect.any(String), streams: 2 }]);
    expect((await call(server, '/admin/v1/instances', { key: null })).status).toBe(401);
  });
});
