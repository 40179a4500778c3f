// The web provider inside the real @openfeature/web-sdk, against the reference server over real HTTP.
import { ErrorCode, OpenFeature, ProviderEvents, ProviderStatus, type EventDetails } from '@openfeature/web-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wsTransport } from '../../adapters/ws';
import { FlagplaneWebProvider } from '../../openfeature/index';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { createClient } from '../../src/client';
import { fetchTransport } from '../../src/http/fetch-transport';
import type { HttpTransport } from '../../src/http/http-types';
import type { ClientOptions } from '../../src/options';
import { DEMO } from '../helpers/reference-server';
import { waitFor } from '../helpers/wait-for';
import { providerSnapshot } from './fixtures';

let server: ReferenceServer;
let clientKey: string;

beforeEach(async () => {
  server = await startReferenceServer({ port: 0 });
  clientKey = await server.createKey('production', 'client');
  server.publish('production', providerSnapshot());
});
afterEach(async () => {
  await OpenFeature.close();
  await OpenFeature.setContext({});
  await server.close();
});

const options = (extra: Partial<ClientOptions> = {}): ClientOptions => ({
  sdkKey: clientKey,
  baseUrl: server.baseUrl,
  pollInterval: 0,
  events: false,
  persist: false,
  syncTabs: false,
  ...extra,
});

/** Every event of `type` the OpenFeature client hears from now on. */
function heard(type: ProviderEvents) {
  const events: Array<EventDetails | undefined> = [];
  OpenFeature.getClient().addHandler(type, (details) => void events.push(details));
  return events;
}

async function ready(extra: Partial<ClientOptions> = {}, context = { targetingKey: 'user-1', plan: 'pro' }) {
  await OpenFeature.setContext(context);
  const provider = new FlagplaneWebProvider(options(extra));
  await OpenFeature.setProviderAndWait(provider);
  return { provider, of: OpenFeature.getClient() };
}

describe('FlagplaneWebProvider in @openfeature/web-sdk', () => {
  it('resolves the four types with reason, variant and metadata from the snapshot', async () => {
    const { of } = await ready();
    expect(of.providerStatus).toBe(ProviderStatus.READY);
    expect(of.getBooleanDetails('dark-mode', false)).toEqual({
      flagKey: 'dark-mode',
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'on',
      flagMetadata: { owner: 'design', sunset: 2027, temporary: true },
    });
    // No rules, a fixed fallthrough: OpenFeature's STATIC. No variationKeys: the index. No metadata: none.
    expect(of.getStringDetails('theme', 'dark')).toEqual({ flagKey: 'theme', value: 'light', reason: 'STATIC', variant: '0', flagMetadata: {} });
    expect(of.getNumberValue('page-size', 10)).toBe(20);
    expect(of.getObjectValue('banner', {})).toEqual({ show: true, headline: 'Spring' });
    // OpenFeature's object type takes arrays too.
    expect(of.getObjectValue('tags', {})).toEqual(['a', 'b']);
  });

  it('answers errors with the default and OpenFeature’s codes', async () => {
    const { of } = await ready();
    expect(of.getBooleanDetails('missing', false)).toMatchObject({ value: false, reason: 'ERROR', errorCode: ErrorCode.FLAG_NOT_FOUND });
    expect(of.getStringDetails('dark-mode', 'fallback')).toMatchObject({ value: 'fallback', errorCode: ErrorCode.TYPE_MISMATCH });
    expect(of.getObjectDetails('theme', { fallback: true })).toMatchObject({ value: { fallback: true }, errorCode: ErrorCode.TYPE_MISMATCH });
    expect(of.getNumberDetails('broken', 1)).toMatchObject({ value: 1, errorCode: ErrorCode.PARSE_ERROR });
    // A client key is not served server-only flags.
    expect(of.getStringDetails('server-only', 'none')).toMatchObject({ value: 'none', errorCode: ErrorCode.FLAG_NOT_FOUND });
    expect(of.getStringDetails('missing', 'x').errorMessage).toMatch(/no flag with this key/);
  });

  it('before the first snapshot: PROVIDER_NOT_READY; a late snapshot is announced as READY', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: HttpTransport = async (request) => {
      await released;
      return fetchTransport(request);
    };
    const errors = heard(ProviderEvents.Error);
    const readies = heard(ProviderEvents.Ready);
    await expect(OpenFeature.setProviderAndWait(new FlagplaneWebProvider(options({ transport: held, readyTimeout: 100 })))).rejects.toThrow(
      /no snapshot within readyTimeout/,
    );
    const of = OpenFeature.getClient();
    expect(errors).toHaveLength(1);
    expect(of.getBooleanDetails('dark-mode', false)).toMatchObject({ value: false, errorCode: ErrorCode.PROVIDER_NOT_READY });
    release();
    await waitFor(() => readies.length > 0 && of.providerStatus === ProviderStatus.READY, 5000, 'READY');
    expect(of.getStringValue('theme', 'dark')).toBe('light');
  });

  it('a publish fires CONFIGURATION_CHANGED with the changed flags only', async () => {
    const { provider, of } = await ready();
    expect(of.getStringValue('theme', 'dark')).toBe('light');
    of.getNumberValue('page-size', 10);
    const changes = heard(ProviderEvents.ConfigurationChanged);
    const { version } = await server.publish('production', providerSnapshot('sepia'));
    await provider.client.refresh();
    await waitFor(() => changes.length > 0, 5000, 'CONFIGURATION_CHANGED');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ flagsChanged: ['theme'], metadata: { version } });
    expect(of.getStringValue('theme', 'dark')).toBe('sepia');
  });

  it('a context change re-targets at once, without a CONFIGURATION_CHANGED of its own', async () => {
    const { of } = await ready();
    expect(of.getBooleanValue('dark-mode', false)).toBe(true);
    const changes = heard(ProviderEvents.ConfigurationChanged);
    const contextChanges = heard(ProviderEvents.ContextChanged);
    await OpenFeature.setContext({ targetingKey: 'user-1', plan: 'free' });
    expect(of.getBooleanDetails('dark-mode', true)).toMatchObject({ value: false, reason: 'DEFAULT' });
    await waitFor(() => contextChanges.length > 0, 5000, 'CONTEXT_CHANGED');
    expect(changes).toEqual([]);
  });

  it('STALE while fetches fail, READY once one succeeds; FATAL when the key is revoked', async () => {
    let failing = false;
    const flaky: HttpTransport = (request) => (failing ? Promise.resolve({ kind: 'network-error', cause: new Error('offline') }) : fetchTransport(request));
    const { provider, of } = await ready({ transport: flaky });
    const stale = heard(ProviderEvents.Stale);
    const readies = heard(ProviderEvents.Ready);
    const errors = heard(ProviderEvents.Error);
    failing = true;
    await provider.client.refresh();
    await waitFor(() => stale.length > 0 && of.providerStatus === ProviderStatus.STALE, 5000, 'STALE');
    // Still served from the snapshot held.
    expect(of.getStringValue('theme', 'dark')).toBe('light');
    failing = false;
    await provider.client.refresh();
    await waitFor(() => readies.length > 0, 5000, 'READY');
    server.revokeKey(clientKey);
    await provider.client.refresh();
    await waitFor(() => errors.length > 0 && of.providerStatus === ProviderStatus.FATAL, 5000, 'FATAL');
    expect(errors.at(-1)).toMatchObject({ message: expect.stringMatching(/401/), errorCode: ErrorCode.PROVIDER_FATAL });
    expect(of.getStringDetails('theme', 'dark')).toMatchObject({ value: 'dark', reason: 'ERROR', errorCode: ErrorCode.PROVIDER_FATAL });
  });

  it('STALE while the stream is down and reconnecting, READY once it streams again', async () => {
    // The stream comes from a second server, which is stopped and restarted on its port; the
    // snapshots still come from the first, so no fetch fails: the dropped stream alone is STALE.
    // A key of the demo config, which both servers (and the restarted one) know.
    let stream = await startReferenceServer({ port: 0 });
    let streamUp = true;
    try {
      const { provider, of } = await ready({ sdkKey: DEMO.prodClientKey, streamUrl: stream.baseUrl, streamTransport: wsTransport, pollInterval: 600_000 });
      await waitFor(() => provider.client.getStatus().connection === 'streaming', 5000, 'streaming');
      const stale = heard(ProviderEvents.Stale);
      // OpenFeature runs a READY handler at once when the provider is ready: count from here.
      const readies = heard(ProviderEvents.Ready);
      const readyBefore = readies.length;
      const connections: string[] = [];
      const unsubscribe = provider.client.subscribe(({ status }) => connections.push(status.connection));
      const port = stream.port;
      streamUp = false;
      await stream.close();
      await waitFor(() => stale.length > 0 && of.providerStatus === ProviderStatus.STALE, 5000, 'STALE');
      expect(provider.client.getStatus()).toMatchObject({ connection: 'reconnecting', error: null });
      expect(stale[0]).toMatchObject({ message: 'the stream is reconnecting' });
      // Still served from the snapshot held.
      expect(of.getStringValue('theme', 'dark')).toBe('light');
      expect(readies).toHaveLength(readyBefore);
      // A reconnect attempt that fails is no recovery: no READY, still STALE.
      await waitFor(() => connections.lastIndexOf('reconnecting') > connections.indexOf('connecting') && connections.includes('connecting'), 10_000, 'a failed reconnect attempt');
      expect(readies).toHaveLength(readyBefore);
      expect(of.providerStatus).toBe(ProviderStatus.STALE);
      unsubscribe();
      stream = await startReferenceServer({ port });
      streamUp = true;
      await waitFor(() => provider.client.getStatus().connection === 'streaming', 10_000, 'streaming again');
      expect(readies.length).toBeGreaterThan(readyBefore);
      expect(of.providerStatus).toBe(ProviderStatus.READY);
    } finally {
      if (streamUp) await stream.close();
    }
  });

  it('closes the client it created, and leaves an app’s own client open', async () => {
    const { provider } = await ready();
    await OpenFeature.close();
    expect(provider.client.getStatus().connection).toBe('stopped');

    const own = createClient(options());
    await OpenFeature.setProviderAndWait(new FlagplaneWebProvider(own));
    expect(OpenFeature.getClient().getStringValue('theme', 'dark')).toBe('light');
    await OpenFeature.close();
    expect(own.getStatus().connection).not.toBe('stopped');
    await own.close();
  });
});
