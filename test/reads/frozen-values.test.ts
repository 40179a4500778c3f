import { afterEach, describe, expect, it } from 'vitest';
import type { FlagsClient } from '../../src/client-types';
import { createClient } from '../../src/client';
import { forContext } from '../../src/reads/for-context';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { fingerprint } from '../../src/shared/fingerprint';
import { harness, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, jsonResponse, snapshotServer } from '../helpers/fake-transport';
import { banner, expectUnchangeable } from '../helpers/frozen';
import { snapshotOf } from '../helpers/snapshots';
import { waitFor } from '../helpers/wait-for';

const clients: FlagsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** A client that never hears from the network: it serves what it was given. */
function quietClient(options: Parameters<typeof harness>[1] = {}) {
  const h = harness(() => 'hang', { pollInterval: 0, context: { userId: 'first' }, ...options });
  clients.push(h.client);
  return h.client;
}

/** What every reader serves afterwards: the client for its user and another, and a view for a third. */
function expectServedEverywhere(client: FlagsClient, key: string, expected: unknown) {
  expect(client.get(key)).toEqual(expected);
  expect(client.getAll()[key]).toEqual(expected);
  expect(forContext(client, { userId: 'another' }).get(key)).toEqual(expected);
  client.setContext({ userId: 'second' });
  expect(client.get(key)).toEqual(expected);
  expect(client.getDetails(key).value).toEqual(expected);
}

describe('values are immutable', () => {
  it('get, getDetails and getAll serve a network snapshot’s value frozen through; no later read changes', async () => {
    const { client } = harness(snapshotServer(snapshotOf(1, { banner: banner() })).handler, { pollInterval: 0, context: { userId: 'first' } });
    clients.push(client);
    await client.ready();
    expectUnchangeable(client.get('banner'));
    const details = client.getDetails('banner');
    expectUnchangeable(details.value);
    expect(() => Object.assign(details, { value: 'MUTATED', reason: 'OVERRIDE' })).toThrow(TypeError);
    const all = client.getAll() as Record<string, unknown>;
    expectUnchangeable(all.banner);
    expect(() => Object.assign(all, { banner: 'MUTATED', added: true })).toThrow(TypeError);
    expect(client.getAll()).toEqual({ banner: banner() });
    expectServedEverywhere(client, 'banner', banner());
  });

  it('a forContext view serves it frozen: neither the client nor another view sees a change', async () => {
    const { client } = harness(snapshotServer(snapshotOf(1, { banner: banner() })).handler, { pollInterval: 0 });
    clients.push(client);
    await client.ready();
    const view = forContext(client, { userId: 'viewer' });
    expectUnchangeable(view.get('banner'));
    expectUnchangeable(view.getDetails('banner').value);
    expectUnchangeable(view.getAll().banner);
    expect(() => Object.assign(view.getAll(), { banner: 'MUTATED' })).toThrow(TypeError);
    expect(view.get('banner')).toEqual(banner());
    expectServedEverywhere(client, 'banner', banner());
  });

  it('a bootstrap snapshot’s served variation is frozen in the app’s own object, not copied', () => {
    const bootstrap = snapshotOf(1, { banner: banner() });
    const client = quietClient({ bootstrap });
    const served = client.get('banner');
    expect(served).toBe(bootstrap.flags.banner!.variations[1]);
    expect(Object.isFrozen(bootstrap.flags.banner!.variations[1])).toBe(true);
    expectUnchangeable(served);
    expectServedEverywhere(client, 'banner', banner());
    // Another client of the same bootstrap serves the same, unchanged.
    expect(quietClient({ bootstrap }).get('banner')).toEqual(banner());
  });

  it('a cached snapshot serves its value frozen', () => {
    const cache = createMemoryStorage();
    const record = { format: 1, key: fingerprint(CLIENT_KEY), etag: '"snapshot-1"', snapshot: snapshotOf(1, { banner: banner() }) };
    cache.set('cached', JSON.stringify(record));
    const client = quietClient({ cache, storageKey: 'cached' });
    expect(client.getStatus().source).toBe('cache');
    expectUnchangeable(client.get('banner'));
    expectServedEverywhere(client, 'banner', banner());
  });

  it('a snapshot from another tab serves its value frozen', async () => {
    const options = { sdkKey: 'svc_sdk_client_frozen_tabs_01', baseUrl: 'https://flags.test', pollInterval: 0, events: false, persist: false, syncTabs: true };
    const fetching = createFakeTransport(() => jsonResponse(200, snapshotOf(2, { banner: banner() }), { etag: '"snapshot-2"' }));
    const listening = createClient({ ...options, transport: createFakeTransport(() => 'hang').transport, bootstrap: snapshotOf(1, {}) });
    clients.push(listening);
    clients.push(createClient({ ...options, transport: fetching.transport }));
    await waitFor(() => listening.getStatus().source === 'tab', 5000, 'the snapshot from the other tab');
    expectUnchangeable(listening.get('banner'));
    expectServedEverywhere(listening, 'banner', banner());
  });

  it('an override is frozen when setOverrides takes it, the app’s object in place', () => {
    const client = quietClient({ bootstrap: snapshotOf(1, { banner: banner('from the snapshot') }) });
    const override = banner();
    client.setOverrides({ banner: override });
    expect(Object.isFrozen(override.layout.columns)).toBe(true);
    expect(client.get('banner')).toBe(override);
    expectUnchangeable(client.get('banner'));
    const details = client.getDetails('banner');
    expect(() => Object.assign(details, { reason: 'DEFAULT' })).toThrow(TypeError);
    expectServedEverywhere(client, 'banner', banner());
  });

  it('a configured default is frozen when createClient takes it', () => {
    const defaults = { banner: banner() };
    const client = quietClient({ defaults });
    expect(Object.isFrozen(defaults.banner.layout)).toBe(true);
    expectUnchangeable(client.get('banner'));
    expectUnchangeable(client.getAll().banner);
    expectServedEverywhere(client, 'banner', banner());
    // The default served in place of a value of another type is the same frozen object.
    const mismatched = quietClient({ defaults, bootstrap: snapshotOf(1, { banner: 'a string' }) });
    expect(mismatched.getDetails('banner')).toMatchObject({ value: banner(), errorCode: 'TYPE_MISMATCH' });
    expectUnchangeable(mismatched.get('banner'));
  });

  it('a fallback passed to the call is the caller’s own: served back as given, not frozen', () => {
    const fallback = banner();
    expect(quietClient().get('missing', fallback)).toBe(fallback);
    expect(Object.isFrozen(fallback)).toBe(false);
  });
});
