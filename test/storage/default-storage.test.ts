// The default storage (src/storage/default-storage.ts) where a browser global is only a stub.
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalStorage } from '../../adapters/local-storage';
import { createClient } from '../../src/client';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { overrideGlobal } from '../adapters/global-override';

describe('the default storage where localStorage is a stub (Node 25 without --localstorage-file)', () => {
  // Node 25 defines `globalThis.localStorage` by default; without `--localstorage-file` it is
  // an empty object answering `undefined` for every property (nodejs/node#60303).
  const nodeStub = () => overrideGlobal('localStorage', { value: new Proxy({}, { get: () => undefined }), writable: true });
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('createClient with persist on (the default) and no cache uses no storage there: nothing is reported', async () => {
    // Was a bug: src/storage/default-storage.ts:10-16 takes any truthy `localStorage` as a Storage, so every
    // client on Node 25 (server rendering, CLIs) reports "reading … failed: storage.getItem is
    // not a function" for the snapshot and the anonymous id, and a write failure per snapshot.
    // client.md, `cache`: "`localStorage` in browsers while `persist` is on; none elsewhere".
    // default-storage.ts's own contract: "`undefined` outside browsers".
    restore = nodeStub();
    const fake = createFakeTransport(snapshotServer(snapshotOf(1, { a: 'network' })).handler);
    const errors: unknown[] = [];
    const client = createClient({
      sdkKey: CLIENT_KEY,
      baseUrl: BASE_URL,
      transport: fake.transport,
      events: false,
      syncTabs: false,
      onError: (error) => errors.push(error),
    });
    await client.ready();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(client.get('a')).toBe('network');
    expect(errors).toEqual([]);
    await client.close();
  });

  it('createLocalStorage() there throws "localStorage is not available in this environment"', () => {
    // Was a bug: adapters/local-storage.ts:44 only rejects a falsy `localStorage`; the stub is kept
    // (line 45, so never looked up again) and every call throws a bare TypeError
    // ("resolve(...).getItem is not a function"). adapters.md, failure table: "no
    // `localStorage` at all (server rendering, Node, workers) | `Error('localStorage is not
    // available in this environment')`".
    restore = nodeStub();
    const adapter = createLocalStorage();
    expect(() => adapter.get('k')).toThrow('localStorage is not available in this environment');
  });
});
