// The providers' object resolutions read through the client: what they resolve is frozen too.
import { afterEach, describe, expect, it } from 'vitest';
import { FlagplaneServerProvider, FlagplaneWebProvider } from '../../openfeature/index';
import type { FlagsClient } from '../../src/client-types';
import { harness } from '../helpers/client-harness';
import { banner, expectUnchangeable } from '../helpers/frozen';
import { snapshotOf } from '../helpers/snapshots';

const clients: FlagsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** An app's client already serving the banner (the providers leave it open). */
function servingClient() {
  const { client } = harness(() => 'hang', { pollInterval: 0, bootstrap: snapshotOf(1, { banner: banner() }), context: { userId: 'first' } });
  clients.push(client);
  return client;
}

describe('OpenFeature resolutions serve frozen values', () => {
  it('the server provider: a resolution for one context cannot change another’s', async () => {
    const client = servingClient();
    const provider = new FlagplaneServerProvider(client);
    const resolved = await provider.resolveObjectEvaluation('banner', {}, { targetingKey: 'user-1' });
    expectUnchangeable(resolved.value);
    expect((await provider.resolveObjectEvaluation('banner', {}, { targetingKey: 'user-2' })).value).toEqual(banner());
    expect((await provider.resolveObjectEvaluation('banner', {}, { targetingKey: 'user-1' })).value).toEqual(banner());
    expect(client.get('banner')).toEqual(banner());
  });

  it('the web provider: a resolution cannot change the next, for this context or the next', async () => {
    const client = servingClient();
    const provider = new FlagplaneWebProvider(client);
    expectUnchangeable(provider.resolveObjectEvaluation('banner', {}).value);
    expect(provider.resolveObjectEvaluation('banner', {}).value).toEqual(banner());
    await provider.onContextChange({}, { targetingKey: 'user-2' });
    expect(provider.resolveObjectEvaluation('banner', {}).value).toEqual(banner());
  });
});
