/**
 * The optional flag members of issue 24 over real HTTP: `variationKeys`, `metadata` and the
 * `is` operator are checked on every flag change, refused with the member named, and served
 * as stored to both key kinds.
 */
import { describe, expect, it } from 'vitest';
import demo from '../../../reference-server/demo.json';
import type { ReferenceServer } from '../../../reference-server/index';
import { admin, call, DEMO, errorOf, useServers } from '../helpers';

const servers = useServers();
const demoFlags = demo.environments[0]!.snapshot.flags;

const served = async (server: ReferenceServer, key: string) => (await call(server, '/sdk/v1/snapshot', { key })).json();
const version = (server: ReferenceServer) => server.stores.environments.get('production')!.kv.current;

const isRule = (values: unknown) => ({ id: 'prospects', conditions: [{ kind: 'attribute', attribute: 'customer', op: 'is', values }], serve: { variation: 1 } });

/** A three-variation flag using all three additions. */
const checkout = {
  on: true,
  variations: ['classic', 'one-page', 'express'],
  variationKeys: ['control', 'one-page', 'express'],
  offVariation: 0,
  rules: [isRule([false])],
  fallthrough: { variation: 0 },
  salt: 'checkout',
  clientSide: true,
  metadata: { owner: 'team-payments', ticket: 2417, experiment: true },
};

describe('variationKeys, metadata and the is operator through the admin API', () => {
  it('a flag using all three is stored and served as given to server and client keys', async () => {
    const server = await servers.start();
    const internal = { ...checkout, clientSide: false, salt: 'internal', metadata: { owner: 'team-risk' } };
    expect((await admin(server, 'PUT', '/environments/production/flags/checkout', checkout)).status).toBe(200);
    expect((await admin(server, 'PUT', '/environments/production/flags/internal', internal)).status).toBe(200);

    const forServer = await served(server, DEMO.prodServerKey);
    expect(forServer.flags.checkout).toEqual(checkout);
    expect(forServer.flags.internal).toEqual(internal);
    const forClient = await served(server, DEMO.prodClientKey);
    expect(forClient.flags.checkout).toEqual(checkout);
    expect(forClient.flags.checkout.variationKeys).toEqual(['control', 'one-page', 'express']);
    expect(forClient.flags.checkout.metadata).toEqual({ owner: 'team-payments', ticket: 2417, experiment: true });
    expect(forClient.flags).not.toHaveProperty('internal');
  });

  it('a whole snapshot carries them to client keys too', async () => {
    const server = await servers.start();
    const response = await admin(server, 'PUT', '/environments/production/snapshot', { schemaVersion: 1, flags: { checkout } });
    expect(response.status).toBe(200);
    expect((await served(server, DEMO.prodClientKey)).flags).toEqual({ checkout });
  });

  it('PATCH adds keys and metadata to a demo flag, and metadata {} empties it', async () => {
    const server = await servers.start();
    const members = { variationKeys: ['off', 'on'], metadata: { owner: 'web' }, rules: [isRule([true, false])] };
    const response = await admin(server, 'PATCH', '/environments/production/flags/new-checkout', members);
    expect(response.status).toBe(200);
    expect((await served(server, DEMO.prodClientKey)).flags['new-checkout']).toEqual({ ...demoFlags['new-checkout'], ...members });
    await admin(server, 'PATCH', '/environments/production/flags/new-checkout', { metadata: {} });
    expect((await served(server, DEMO.prodClientKey)).flags['new-checkout'].metadata).toEqual({});
  });

  it('refuses the same on PUT, which names the member the same way', async () => {
    const server = await servers.start();
    const response = await admin(server, 'PUT', '/environments/production/flags/checkout', { ...checkout, variationKeys: ['a', 'b', 'a'] });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_request', path: 'variationKeys[2]' });
    expect(version(server)).toBe(1);
  });
});
