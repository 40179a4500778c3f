import { describe, expect, it } from 'vitest';
import { heldSnapshot } from '../../src/index';
import { createTestClient } from '../../testing/index';
import { harness } from '../helpers/client-harness';
import { jsonResponse } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';

describe('heldSnapshot(client): what a flag is, not what it serves', () => {
  it('undefined before a snapshot; then the one the client serves, following each newer version', async () => {
    let version = 1;
    const { client } = harness(() => jsonResponse(200, snapshotOf(version, { a: version })), { requestTimeout: 0 });
    expect(heldSnapshot(client)).toBeUndefined();
    await client.ready();
    expect(heldSnapshot(client)).toMatchObject({ version: 1, flags: { a: { variations: [null, 1] } } });
    version = 2;
    await client.refresh();
    expect(heldSnapshot(client)).toMatchObject({ version: 2, flags: { a: { variations: [null, 2] } } });
    expect(client.get('a')).toBe(2);
    await client.close();
  });

  it('from the test client too; undefined for any other object', () => {
    const client = createTestClient({ flags: { theme: 'dark' } });
    expect(Object.keys(heldSnapshot(client)!.flags)).toEqual(['theme']);
    for (const other of [{}, { getDetails: () => null }, heldSnapshot]) expect(heldSnapshot(other)).toBeUndefined();
  });
});
