import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { createClient } from '../../src/client';
import type { FlagsClient } from '../../src/client-types';
import type { FlagplaneError } from '../../src/errors';
import { snapshotOf } from '../helpers/snapshots';

let server: ReferenceServer;
const clients: FlagsClient[] = [];

beforeEach(async () => {
  server = await startReferenceServer({ port: 0 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server.close();
});

function start(environment: 'production' | 'staging', options: Record<string, unknown> = {}) {
  const errors: FlagplaneError[] = [];
  const client = createClient({
    sdkKey: server.createKey(environment, 'server'),
    baseUrl: server.baseUrl,
    pollInterval: 0,
    flushInterval: 0,
    onError: (error) => errors.push(error),
    ...options,
  });
  clients.push(client);
  return { client, errors };
}

describe('events and identity against the reference server', () => {
  it('production evaluation events land in the analytics store; staging ones never do', async () => {
    server.publish('production', snapshotOf(0, { checkout: 'new' }, 'production'));
    server.publish('staging', snapshotOf(0, { checkout: 'new' }, 'staging'));
    const production = start('production', { context: { userId: 'p-user' } });
    const staging = start('staging', { context: { userId: 's-user' } });
    await Promise.all([production.client.ready(), staging.client.ready()]);
    production.client.get('checkout');
    staging.client.get('checkout');
    await Promise.all([production.client.flush(), staging.client.flush()]);
    expect(production.errors).toEqual([]);
    expect(staging.errors).toEqual([]);
    const analytics = server.stores.analytics.events;
    expect(analytics).toEqual([expect.objectContaining({ type: 'evaluation', key: 'checkout', value: 'new', userId: 'p-user', environmentId: 'production' })]);
    expect(analytics.some((event) => event.environmentId === 'staging')).toBe(false);
    expect(server.stores.diagnostics.events).toContainEqual(expect.objectContaining({ type: 'evaluation', userId: 's-user', environmentId: 'staging' }));
  });

  it('identify events land in the identify queue, and the overlay is merged under the session traits', async () => {
    server.setTraits('production', 'u-77', { plan: 'enterprise', country: 'FR' });
    const { client, errors } = start('production');
    await client.ready();
    await client.identify('u-77', { country: 'DE' });
    expect(client.getContext().attributes).toEqual({ plan: 'enterprise', country: 'DE' });
    await client.flush();
    expect(errors).toEqual([]);
    expect(server.stores.identifyQueue.forEnvironment('production')).toEqual([
      expect.objectContaining({ environmentId: 'production', userId: 'u-77', traits: { country: 'DE' } }),
    ]);
  });

  it('close() sends what is still buffered', async () => {
    const { client } = start('production', { context: { userId: 'closing' } });
    await client.ready();
    client.get('missing-flag');
    await client.close();
    expect(server.stores.diagnostics.events).toContainEqual(expect.objectContaining({ type: 'unregistered_flag', key: 'missing-flag' }));
  });
});
