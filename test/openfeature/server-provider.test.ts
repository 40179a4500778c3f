// The server provider inside the real @openfeature/server-sdk, against the reference server over real HTTP.
import { ErrorCode, OpenFeature, ProviderEvents, type EventDetails } from '@openfeature/server-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FlagplaneServerProvider } from '../../openfeature/index';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { waitFor } from '../helpers/wait-for';
import { providerSnapshot } from './fixtures';

let server: ReferenceServer;
let serverKey: string;

beforeEach(async () => {
  server = await startReferenceServer({ port: 0 });
  serverKey = await server.createKey('production', 'server');
  server.publish('production', providerSnapshot());
});
afterEach(async () => {
  await OpenFeature.close();
  await server.close();
});

async function ready(events = false) {
  const provider = new FlagplaneServerProvider({ sdkKey: serverKey, baseUrl: server.baseUrl, pollInterval: 0, events, flushInterval: 0 });
  await OpenFeature.setProviderAndWait(provider);
  return { provider, of: OpenFeature.getClient() };
}

describe('FlagplaneServerProvider in @openfeature/server-sdk', () => {
  it('evaluates each call for its own context, concurrently, without touching the client’s', async () => {
    const { provider, of } = await ready();
    const own = provider.client.getContext();
    const contexts = Array.from({ length: 200 }, (_, i) => ({ targetingKey: `user-${i}`, plan: i % 3 ? 'free' : 'pro' }));
    const values = await Promise.all(contexts.map((context) => of.getBooleanValue('dark-mode', false, context)));
    expect(values).toEqual(contexts.map((context) => context.plan === 'pro'));
    expect(await of.getBooleanDetails('dark-mode', false, { targetingKey: 'u', plan: 'pro' })).toMatchObject({
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'on',
      flagMetadata: { owner: 'design', sunset: 2027, temporary: true },
    });
    expect(provider.client.getContext()).toBe(own);
  });

  it('takes OpenFeature’s global and client contexts, merged by the SDK, per call', async () => {
    const { of } = await ready();
    OpenFeature.setContext({ plan: 'pro' });
    expect(await of.getBooleanValue('dark-mode', false, { targetingKey: 'u' })).toBe(true);
    expect(await of.getBooleanValue('dark-mode', false, { targetingKey: 'u', plan: 'free' })).toBe(false);
    OpenFeature.setContext({});
  });

  it('serves server-only flags to a server key, and errors with OpenFeature’s codes', async () => {
    const { of } = await ready();
    expect(await of.getStringValue('server-only', 'none', {})).toBe('secret');
    expect(await of.getObjectValue('banner', {}, {})).toEqual({ show: true, headline: 'Spring' });
    expect(await of.getNumberValue('page-size', 1, {})).toBe(20);
    expect(await of.getBooleanDetails('missing', true, {})).toMatchObject({ value: true, errorCode: ErrorCode.FLAG_NOT_FOUND });
    expect(await of.getNumberDetails('theme', 7, {})).toMatchObject({ value: 7, errorCode: ErrorCode.TYPE_MISMATCH });
    expect(await of.getStringDetails('broken', 'x', {})).toMatchObject({ value: 'x', errorCode: ErrorCode.PARSE_ERROR });
  });

  it('a publish fires CONFIGURATION_CHANGED', async () => {
    const { provider, of } = await ready();
    await of.getStringValue('theme', 'dark', {});
    const changes: Array<EventDetails | undefined> = [];
    of.addHandler(ProviderEvents.ConfigurationChanged, (details) => void changes.push(details));
    const { version } = await server.publish('production', providerSnapshot('sepia'));
    await provider.client.refresh();
    await waitFor(() => changes.length > 0, 5000, 'CONFIGURATION_CHANGED');
    expect(changes[0]).toMatchObject({ metadata: { version } });
    expect(await of.getStringValue('theme', 'dark', {})).toBe('sepia');
  });

  it('reports each call’s evaluation for that call’s user', async () => {
    const { provider, of } = await ready(true);
    await of.getBooleanValue('dark-mode', false, { targetingKey: 'alice', plan: 'pro' });
    await of.getBooleanValue('dark-mode', false, { targetingKey: 'bob', plan: 'free' });
    await provider.client.flush();
    const evaluations = server.stores.analytics.events.filter((event) => event.type === 'evaluation');
    expect(evaluations.map((event) => [event.userId, event.value])).toEqual([
      ['alice', true],
      ['bob', false],
    ]);
  });
});
