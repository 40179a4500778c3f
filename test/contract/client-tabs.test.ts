import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import type { FlagsClient } from '../../src/client-types';
import { jsonResponse, createFakeTransport } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { waitFor } from '../helpers/wait-for';

const clients: FlagsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/**
 * Two "tabs": two clients of the same key in one process share a BroadcastChannel (Node 20 has
 * one). Tab sync is on by default in a page only: these clients ask for it.
 */
describe('tabs', () => {
  it('a newer snapshot accepted by one tab reaches the other without a fetch of its own, under version gating', async () => {
    let served = snapshotOf(1, { a: 'v1' });
    const first = createFakeTransport(() => jsonResponse(200, served, { etag: `"snapshot-${served.version}"` }));
    const second = createFakeTransport(() => jsonResponse(200, snapshotOf(1, { a: 'v1' }), { etag: '"snapshot-1"' }));
    const options = { sdkKey: 'svc_sdk_client_tabs_key_0001', baseUrl: 'https://flags.test', pollInterval: 0, events: false, persist: false, syncTabs: true };
    const tabA = createClient({ ...options, transport: first.transport });
    const tabB = createClient({ ...options, transport: second.transport });
    clients.push(tabA, tabB);
    await Promise.all([tabA.ready(), tabB.ready()]);
    served = snapshotOf(3, { a: 'v3' });
    await tabA.refresh();
    await waitFor(() => tabB.get('a') === 'v3', 5000, 'the other tab to take the snapshot');
    expect(second.requests).toHaveLength(1);
    expect(tabB.getStatus()).toMatchObject({ version: 3, source: 'tab' });

    const other = createFakeTransport(() => jsonResponse(200, snapshotOf(2, { a: 'older' })));
    const tabC = createClient({ ...options, transport: other.transport });
    clients.push(tabC);
    await tabC.ready();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tabB.get('a')).toBe('v3');
  });
});
