import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import { HttpError, type FlagplaneError } from '../../src/shared/errors';
import { fetchTransport } from '../../src/http/fetch-transport';
import type { HttpTransport } from '../../src/http/http-types';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { useReferenceServer } from '../helpers/reference-server';
import { snapshotOf } from '../helpers/snapshots';
import { waitFor } from '../helpers/wait-for';

const reference = useReferenceServer();


/** A real fetch transport that records each answer's status. */
function recordingTransport() {
  const statuses: number[] = [];
  const transport: HttpTransport = async (request) => {
    const result = await fetchTransport(request);
    if (result.kind === 'response') statuses.push(result.status);
    return result;
  };
  return { transport, statuses };
}

function start(options: { sdkKey: string; pollInterval?: number; transport?: HttpTransport; cache?: StorageAdapter }) {
  const errors: FlagplaneError[] = [];
  const client = createClient({ baseUrl: reference.server.baseUrl, onError: (error) => errors.push(error), ...options });
  reference.clients.push(client);
  return { client, errors };
}

describe('the client against the reference server (real HTTP)', () => {
  it('fetches the snapshot, then gets 304 on the next poll', async () => {
    const key = await reference.server.createKey('production', 'server');
    const { transport, statuses } = recordingTransport();
    const { client, errors } = start({ sdkKey: key, pollInterval: 100, transport });
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(client.getStatus().version).toBeGreaterThanOrEqual(1);
    await waitFor(() => statuses.length >= 2, 5000, 'a second poll');
    expect(statuses.slice(0, 2)).toEqual([200, 304]);
    expect(errors).toEqual([]);
  });

  it('picks up a published snapshot on the following poll', async () => {
    const key = await reference.server.createKey('production', 'server');
    const { client } = start({ sdkKey: key, pollInterval: 100 });
    await client.ready();
    const { version } = await reference.server.publish('production', snapshotOf(0, { 'contract-flag': 'published' }));
    await waitFor(() => client.get('contract-flag') === 'published', 5000, 'the published value');
    expect(client.getStatus().version).toBe(version);
  });

  it('a client key sees only client-side flags', async () => {
    const serverKey = await reference.server.createKey('production', 'server');
    const clientKey = await reference.server.createKey('production', 'client');
    const snapshot = snapshotOf(0, { visible: 'yes', secret: 'hidden' });
    snapshot.flags['secret']!.clientSide = false;
    reference.server.publish('production', snapshot);
    const asServer = start({ sdkKey: serverKey, pollInterval: 0 }).client;
    const asClient = start({ sdkKey: clientKey, pollInterval: 0 }).client;
    await Promise.all([asServer.ready(), asClient.ready()]);
    expect(asServer.get('secret')).toBe('hidden');
    expect(asClient.get('visible')).toBe('yes');
    expect(asClient.get('secret', 'default')).toBe('default');
  });

  it('a revoked key reports HttpError 401 through onError while reads keep the last snapshot', async () => {
    const key = await reference.server.createKey('production', 'client');
    reference.server.publish('production', snapshotOf(0, { kept: 'value' }));
    const { client, errors } = start({ sdkKey: key, pollInterval: 100 });
    await client.ready();
    reference.server.revokeKey(key);
    await waitFor(() => errors.length > 0, 5000, 'an error');
    expect(errors[0]).toBeInstanceOf(HttpError);
    expect((errors[0] as HttpError).status).toBe(401);
    expect((errors[0] as HttpError).serverCode).toBe('unauthorized');
    expect(client.get('kept')).toBe('value');
    expect(client.getStatus().error).toBe(errors[0]);
  });

  it('a snapshot with a newer schema is rejected and the last good one kept', async () => {
    const key = await reference.server.createKey('production', 'server');
    reference.server.publish('production', snapshotOf(0, { stable: 'good' }));
    const { client, errors } = start({ sdkKey: key, pollInterval: 100 });
    await client.ready();
    reference.server.publish('production', { ...snapshotOf(0, { stable: 'future' }), schemaVersion: 2 });
    await waitFor(() => errors.length > 0, 5000, 'a schema error');
    expect(errors[0]!.code).toBe('schema');
    expect(client.get('stable')).toBe('good');
  });

  it('an unreachable server: ready() resolves with timeout, errors are reported, reads serve defaults', async () => {
    const errors: FlagplaneError[] = [];
    // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    const unreachable = createClient({
      sdkKey: 'svc_sdk_client_nobody_listens',
      baseUrl: 'http://127.0.0.1:9',
      readyTimeout: 300,
      defaults: { theme: 'light' },
      onError: (error) => errors.push(error),
    });
    reference.clients.push(unreachable);
    await expect(unreachable.ready()).resolves.toEqual({ status: 'timeout', source: null });
    expect(unreachable.get('theme')).toBe('light');
    expect(errors[0]!.code).toBe('network');
  });

  it('after a reload, the cached snapshot serves at once and the first request gets a 304', async () => {
    const key = await reference.server.createKey('production', 'client');
    reference.server.publish('production', snapshotOf(0, { cached: 'from before the reload' }));
    const cache = createMemoryStorage();
    const first = start({ sdkKey: key, pollInterval: 0, cache });
    await first.client.ready();
    await first.client.close();

    const { transport, statuses } = recordingTransport();
    const { client } = start({ sdkKey: key, pollInterval: 0, transport, cache });
    expect(client.get('cached')).toBe('from before the reload');
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'cache' });
    await waitFor(() => statuses.length === 1, 5000, 'the first request');
    expect(statuses).toEqual([304]);
  });
});
