import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import type { FlagplaneError } from '../../src/shared/errors';
import { useReferenceServer } from '../helpers/reference-server';
import { snapshotOf } from '../helpers/snapshots';

const reference = useReferenceServer();


async function start(environment: 'production' | 'staging', options: Record<string, unknown> = {}) {
  const errors: FlagplaneError[] = [];
  const client = createClient({
    sdkKey: await reference.server.createKey(environment, 'server'),
    baseUrl: reference.server.baseUrl,
    pollInterval: 0,
    flushInterval: 0,
    onError: (error) => errors.push(error),
    ...options,
  });
  reference.clients.push(client);
  return { client, errors };
}

describe('events and identity against the reference server', () => {
  it('production evaluation events land in the analytics store; staging ones never do', async () => {
    reference.server.publish('production', snapshotOf(0, { checkout: 'new' }, 'production'));
    reference.server.publish('staging', snapshotOf(0, { checkout: 'new' }, 'staging'));
    const production = await start('production', { context: { userId: 'p-user' } });
    const staging = await start('staging', { context: { userId: 's-user' } });
    await Promise.all([production.client.ready(), staging.client.ready()]);
    production.client.get('checkout');
    staging.client.get('checkout');
    await Promise.all([production.client.flush(), staging.client.flush()]);
    expect(production.errors).toEqual([]);
    expect(staging.errors).toEqual([]);
    const analytics = reference.server.stores.analytics.events;
    expect(analytics).toEqual([expect.objectContaining({ type: 'evaluation', key: 'checkout', value: 'new', userId: 'p-user', environmentId: 'production' })]);
    expect(analytics.some((event) => event.environmentId === 'staging')).toBe(false);
    expect(reference.server.stores.diagnostics.events).toContainEqual(expect.objectContaining({ type: 'evaluation', userId: 's-user', environmentId: 'staging' }));
  });

  it('identify events land in the identify queue, and the overlay is merged under the session traits', async () => {
    reference.server.setTraits('production', 'u-77', { plan: 'enterprise', country: 'FR' });
    const { client, errors } = await start('production');
    await client.ready();
    await client.identify('u-77', { country: 'DE' });
    expect(client.getContext().attributes).toEqual({ plan: 'enterprise', country: 'DE' });
    await client.flush();
    expect(errors).toEqual([]);
    expect(reference.server.stores.identifyQueue.forEnvironment('production')).toEqual([
      expect.objectContaining({ environmentId: 'production', userId: 'u-77', traits: { country: 'DE' } }),
    ]);
  });

  it('close() sends what is still buffered', async () => {
    const { client } = await start('production', { context: { userId: 'closing' } });
    await client.ready();
    client.get('missing-flag');
    await client.close();
    expect(reference.server.stores.diagnostics.events).toContainEqual(expect.objectContaining({ type: 'unregistered_flag', key: 'missing-flag' }));
  });
});
