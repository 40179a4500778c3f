import { describe, expect, it } from 'vitest';
import demo from '../../reference-server/demo.json';
import { admin, call, DEMO, errorOf, NOW, useServers } from './helpers';

const servers = useServers();
const prodSnapshot = demo.environments[0]!.snapshot;

describe('admin API authentication', () => {
  it.each([
    ['no token', null],
    ['a wrong token', 'dev-admin-token-x'],
    ['an SDK key', DEMO.prodServerKey],
  ])('answers 401 with %s', async (_name, key) => {
    const server = await servers.start();
    const response = await call(server, '/admin/v1/analytics', { key });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect((await errorOf(response)).code).toBe('unauthorized');
  });

  it('uses the configured token, or a random one when the config has none', async () => {
    const demoServer = await servers.start();
    expect(demoServer.adminToken).toBe(DEMO.adminToken);
    const { adminToken: _omitted, ...withoutToken } = demo;
    const first = await servers.start({ config: withoutToken as never });
    const second = await servers.start({ config: withoutToken as never });
    expect(first.adminToken.length).toBeGreaterThanOrEqual(16);
    expect(first.adminToken).not.toBe(second.adminToken);
    expect((await admin(first, 'GET', '/analytics')).status).toBe(200);
    expect((await call(first, '/admin/v1/analytics', { key: DEMO.adminToken })).status).toBe(401);
  });
});

describe('PUT /admin/v1/environments/{id}/snapshot', () => {
  it('stores the snapshot as current + 1, ignoring the body’s version and environmentId', async () => {
    const server = await servers.start();
    const body = { ...prodSnapshot, version: 999, environmentId: 'elsewhere', flags: { 'only-flag': prodSnapshot.flags['new-checkout'] } };
    const response = await admin(server, 'PUT', '/environments/production/snapshot', body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ environmentId: 'production', version: 2 });
    const third = await admin(server, 'PUT', '/environments/production/snapshot', body);
    expect(await third.json()).toEqual({ environmentId: 'production', version: 3 });

    const kv = server.stores.environments.get('production')!.kv;
    expect(kv.current).toBe(3);
    expect([...kv.snapshots.keys()]).toEqual([1, 2, 3]);
    const served = await (await call(server, '/sdk/v1/snapshot')).json();
    expect(served).toMatchObject({ version: 3, environmentId: 'production' });
    expect(Object.keys(served.flags)).toEqual(['only-flag']);
    expect(server.stores.environments.get('staging')!.kv.current).toBe(1);
  });

  it('accepts a snapshot with a newer schemaVersion and any flag shape', async () => {
    const server = await servers.start();
    const response = await admin(server, 'PUT', '/environments/staging/snapshot', { schemaVersion: 2, flags: { x: { kind: 'new' } }, segments: [] });
    expect(response.status).toBe(200);
    const served = await (await call(server, '/sdk/v1/snapshot', { key: DEMO.stagingServerKey })).json();
    expect(served).toEqual({ schemaVersion: 2, version: 2, environmentId: 'staging', flags: { x: { kind: 'new' } }, segments: [] });
  });

  it.each([
    ['an array', [], undefined],
    ['no schemaVersion', { flags: {} }, 'schemaVersion'],
    ['a string schemaVersion', { schemaVersion: '1', flags: {} }, 'schemaVersion'],
    ['a fractional schemaVersion', { schemaVersion: 1.5, flags: {} }, 'schemaVersion'],
    ['flags as an array', { schemaVersion: 1, flags: [] }, 'flags'],
    ['no flags', { schemaVersion: 1 }, 'flags'],
    ['a numeric environmentId', { schemaVersion: 1, flags: {}, environmentId: 3 }, 'environmentId'],
  ])('rejects %s with 400 invalid_request', async (_name, body, path) => {
    const server = await servers.start();
    const response = await admin(server, 'PUT', '/environments/production/snapshot', body);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect(error.path).toBe(path);
    expect(server.stores.environments.get('production')!.kv.current).toBe(1);
  });

  it('rejects bodies that are not JSON, unknown environments, and bodies over 5 MiB', async () => {
    const server = await servers.start();
    const notJson = await call(server, '/admin/v1/environments/production/snapshot', { key: server.adminToken, method: 'PUT', rawBody: '{' });
    expect(notJson.status).toBe(400);
    expect((await errorOf(notJson)).code).toBe('invalid_json');
    const unknown = await admin(server, 'PUT', '/environments/qa/snapshot', prodSnapshot);
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('not_found');
    const huge = await call(server, '/admin/v1/environments/production/snapshot', {
      key: server.adminToken,
      method: 'PUT',
      rawBody: JSON.stringify({ schemaVersion: 1, flags: {}, pad: 'x'.repeat(5 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect((await errorOf(huge)).code).toBe('payload_too_large');
  });

  it('publish() throws for an unknown environment or a malformed envelope', async () => {
    const server = await servers.start();
    await expect(server.publish('qa', prodSnapshot)).rejects.toThrow(/unknown environment "qa"/);
    await expect(server.publish('production', { schemaVersion: 1 } as never)).rejects.toThrow(/flags/);
  });
});

describe('keys', () => {
  it('creates keys of either kind that work at once', async () => {
    const server = await servers.start();
    const response = await admin(server, 'POST', '/environments/staging/keys', { kind: 'client' });
    expect(response.status).toBe(201);
    const created = await response.json();
    expect(created).toEqual({ key: expect.stringMatching(/^svc_sdk_client_[A-Za-z0-9_-]{8,128}$/), kind: 'client', environmentId: 'staging' });
    const snapshot = await call(server, '/sdk/v1/snapshot', { key: created.key });
    expect((await snapshot.json()).environmentId).toBe('staging');

    const serverKey = await server.createKey('production', 'server');
    expect(serverKey).toMatch(/^svc_sdk_server_[A-Za-z0-9_-]{8,128}$/);
    expect((await call(server, '/sdk/v1/snapshot', { key: serverKey })).status).toBe(200);
  });

  it.each([[{ kind: 'admin' }], [{}], [null], [['client']]])('rejects the key body %j with 400 naming kind', async (body) => {
    const server = await servers.start();
    const response = await admin(server, 'POST', '/environments/production/keys', body);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_request', path: 'kind' });
  });

  it('revokes a key: 204, then 401 for it; revoking again is 204, an unknown key 404', async () => {
    const server = await servers.start();
    expect((await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).status).toBe(200);
    const revoked = await admin(server, 'DELETE', `/keys/${DEMO.prodClientKey}`);
    expect(revoked.status).toBe(204);
    expect(await revoked.text()).toBe('');
    expect((await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).status).toBe(401);
    expect((await call(server, '/sdk/v1/snapshot', { key: DEMO.prodServerKey })).status).toBe(200);
    expect((await admin(server, 'DELETE', `/keys/${DEMO.prodClientKey}`)).status).toBe(204);
    const unknown = await admin(server, 'DELETE', '/keys/svc_sdk_client_unknown_0000');
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('not_found');
    await expect(server.revokeKey('svc_sdk_client_unknown_0000')).rejects.toThrow();
  });
});

describe('traits, resync and the stores', () => {
  it('replaces a user’s traits, rejecting non-objects', async () => {
    const server = await servers.start();
    const response = await admin(server, 'PUT', '/environments/staging/traits/u-1', { plan: 'team' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ userId: 'u-1', traits: { plan: 'team' } });
    expect(server.stores.traits.get('staging', 'u-1')).toEqual({ plan: 'team' });
    const bad = await admin(server, 'PUT', '/environments/staging/traits/u-1', ['plan']);
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).code).toBe('invalid_request');
    expect((await admin(server, 'PUT', '/environments/qa/traits/u-1', {})).status).toBe(404);
  });

  it('answers resync with the number of subscribers notified', async () => {
    const server = await servers.start();
    const response = await admin(server, 'POST', '/environments/production/resync');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ environmentId: 'production', notified: 0 });
    expect((await admin(server, 'POST', '/environments/qa/resync')).status).toBe(404);
  });

  it('lists the identify queue per environment, analytics and diagnostics', async () => {
    const server = await servers.start();
    const batch = {
      sentAt: NOW(),
      events: [
        { type: 'identify', userId: 'u-1', traits: { plan: 'pro' } },
        { type: 'evaluation', key: 'new-checkout', reason: 'DEFAULT', value: false, userId: 'u-1' },
        { type: 'unregistered_flag', key: 'ghost' },
      ],
    };
    await call(server, '/sdk/v1/events', { method: 'POST', body: batch });
    await call(server, '/sdk/v1/events', { method: 'POST', body: batch, key: DEMO.stagingClientKey });

    const queue = await (await admin(server, 'GET', '/environments/production/identify-queue')).json();
    expect(queue.rows).toEqual([{ id: expect.any(Number), environmentId: 'production', userId: 'u-1', traits: { plan: 'pro' }, receivedAt: expect.any(String) }]);
    expect((await admin(server, 'GET', '/environments/qa/identify-queue')).status).toBe(404);

    const analytics = await (await admin(server, 'GET', '/analytics')).json();
    expect(analytics.events).toEqual([expect.objectContaining({ type: 'evaluation', environmentId: 'production', receivedAt: expect.any(String) })]);
    const diagnostics = await (await admin(server, 'GET', '/diagnostics')).json();
    expect(diagnostics.events.map((e: { type: string; environmentId: string }) => `${e.environmentId}:${e.type}`)).toEqual([
      'production:unregistered_flag',
      'staging:evaluation',
      'staging:unregistered_flag',
    ]);
  });
});
