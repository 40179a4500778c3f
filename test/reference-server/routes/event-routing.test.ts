/** Where accepted events go: the identify queue, analytics or diagnostics (protocol.md §4). */
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../../reference-server/index';
import { admin, call, DEMO, evaluation, NOW, useServers } from '../helpers';

const servers = useServers();

describe('routing by environment kind (protocol.md §4)', () => {
  // Events are routed by what an environment is, not by what it is called: a config may name a
  // staging environment "production".
  const config = (): ServerConfig => ({
    adminToken: 'admin-token-for-tests',
    environments: [
      {
        id: 'production',
        kind: 'staging',
        keys: [{ key: 'svc_sdk_client_misnamed_0001', kind: 'client' }],
        snapshot: { schemaVersion: 1, version: 1, environmentId: 'x', flags: {} },
      },
      {
        id: 'eu-live',
        kind: 'production',
        keys: [{ key: 'svc_sdk_client_eulive_0001', kind: 'client' }],
        snapshot: { schemaVersion: 1, version: 1, environmentId: 'x', flags: {} },
      },
    ],
  });

  it('sends evaluations to analytics by the environment’s kind, for configured and created keys alike', async () => {
    const server = await servers.start({ config: config() });
    const created = await server.createKey('eu-live', 'server');
    const batch = { sentAt: NOW(), events: [evaluation(), { type: 'identify', userId: 'u-1', traits: { plan: 'pro' } }] };
    for (const key of ['svc_sdk_client_misnamed_0001', 'svc_sdk_client_eulive_0001', created]) {
      const response = await call(server, '/sdk/v1/events', { key, method: 'POST', body: batch });
      expect(response.status).toBe(202);
    }
    expect(server.stores.analytics.events.map((e) => e.environmentId)).toEqual(['eu-live', 'eu-live']);
    expect(server.stores.diagnostics.events.map((e) => `${e.environmentId}:${e.type}`)).toEqual(['production:evaluation']);
    expect(server.stores.identifyQueue.rows.map((r) => r.environmentId)).toEqual(['production', 'eu-live', 'eu-live']);

    // The admin listings read the same stores.
    expect((await (await admin(server, 'GET', '/analytics')).json()).events).toEqual(server.stores.analytics.events);
    const queue = await (await admin(server, 'GET', '/environments/eu-live/identify-queue')).json();
    expect(queue.rows.map((r: { id: number }) => r.id)).toEqual([2, 3]);
  });

  it('lets no event member override where or when it was stored', async () => {
    const server = await servers.start();
    const spoofed = { ...evaluation(), environmentId: 'staging', receivedAt: '2000-01-01T00:00:00Z' };
    await call(server, '/sdk/v1/events', { key: DEMO.prodClientKey, method: 'POST', body: { sentAt: NOW(), events: [spoofed] } });
    await call(server, '/sdk/v1/events', {
      key: DEMO.stagingClientKey,
      method: 'POST',
      body: { sentAt: NOW(), events: [{ ...evaluation(), environmentId: 'production' }] },
    });
    expect(server.stores.analytics.events).toHaveLength(1);
    expect(server.stores.analytics.events[0]).toMatchObject({ environmentId: 'production' });
    expect(server.stores.analytics.events[0]!.receivedAt).not.toBe('2000-01-01T00:00:00Z');
    expect(server.stores.diagnostics.events.map((e) => e.environmentId)).toEqual(['staging']);
  });
});
