import { afterEach, describe, expect, it, vi, beforeEach } from 'vitest';
import { fingerprint } from '../../src/shared/fingerprint';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { harness, CLIENT_KEY } from '../helpers/client-harness';
import { jsonResponse, response, snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { StorageError } from '../../src/shared/errors';
import type { StorageAdapter } from '../../src/storage/storage-types';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const STORAGE_KEY = `flagplane:snapshot:${fingerprint(CLIENT_KEY)}`;

describe('the snapshot cache and its key fingerprint', () => {
  // Two well-formed client keys of two environments whose FNV-1a 32-bit hashes are equal
  // (found by a birthday search over ~10^5 keys of this form). The fingerprint was that one
  // hash; it is now 64 bits.
  const PROD_KEY = 'svc_sdk_client_prod_00187141';
  const STAGING_KEY = 'svc_sdk_client_stg_00469400';

  it('the two keys collide in 32 bits, and their 64-bit fingerprints differ', () => {
    expect(fingerprint(PROD_KEY).slice(0, 8)).toBe(fingerprint(STAGING_KEY).slice(0, 8));
    expect(fingerprint(PROD_KEY)).not.toBe(fingerprint(STAGING_KEY));
  });

  it('a client never serves another environment\'s snapshot from a shared cache, even when key fingerprints collide', async () => {
    // Was a bug: docs/client.md says of `storageKey`: "two environments never share an entry". The
    // entry's name and its `key` check are one 32-bit FNV-1a hash (src/shared/fingerprint.ts), so two
    // keys on one origin can share it; and version gating (src/machine/transition.ts) compares versions
    // across environments, so the staging client's own network snapshot (version 3) is
    // "older" than production's cached version 7 and is ignored for good. The same holds for
    // tab sync, whose channel name is the same fingerprint (and tab-sync.ts's comment says the
    // acceptance path "rejects ... another environment"; nothing checks environmentId).
    const memory = createMemoryStorage();
    const prod = harness(() => jsonResponse(200, snapshotOf(7, { banner: 'production' }, 'production'), { etag: '"p7"' }), {
      sdkKey: PROD_KEY,
      cache: memory,
    });
    await prod.client.ready();
    await prod.client.close();

    const staging = harness(() => jsonResponse(200, snapshotOf(3, { banner: 'staging' }, 'staging'), { etag: '"s3"' }), {
      sdkKey: STAGING_KEY,
      cache: memory,
    });
    await staging.client.refresh();
    const served = staging.client.get('banner');
    const status = staging.client.getStatus();
    await staging.client.close();
    expect(served).toBe('staging');
    expect(status).toMatchObject({ source: 'network', version: 3 });
  });
});

describe('the snapshot cache record', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a record of an older format (no `format`, or `format: 0`) is a silent miss, replaced by the next accepted snapshot', async () => {
    for (const format of [undefined, 0]) {
      const old = { format, key: fingerprint(CLIENT_KEY), etag: '"old"', snapshot: snapshotOf(9, { a: 'old format' }) };
      const cache = createMemoryStorage({ [STORAGE_KEY]: JSON.stringify(old) });
      const { client, errors, requests } = harness(snapshotServer(snapshotOf(2, { a: 'network' })).handler, { cache });
      expect(client.get('a', 'default')).toBe('default');
      expect(client.getStatus().status).toBe('initializing');
      await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
      expect(requests[0]!.headers['if-none-match']).toBeUndefined();
      expect(client.get('a')).toBe('network');
      expect(errors).toEqual([]);
      const written = JSON.parse(cache.get(STORAGE_KEY) as string);
      expect(written).toMatchObject({ format: 1, key: fingerprint(CLIENT_KEY), etag: '"snapshot-2"', snapshot: { version: 2 } });
      await client.close();
    }
  });

  it('a failing write is reported once per accepted snapshot: not again on 304s or on a 200 of the same version; memory keeps serving', async () => {
    const writes: string[] = [];
    const cache: StorageAdapter = {
      get: () => null,
      set: (_key, value) => {
        writes.push(value);
        return Promise.reject(new Error('disk full'));
      },
      remove: () => undefined,
    };
    let body = snapshotOf(1, { a: 'v1' });
    let withEtag = true;
    const server = (request: { headers: Record<string, string> }) => {
      const etag = `"snapshot-${body.version}"`;
      if (withEtag && request.headers['if-none-match'] === etag) return response(304, '', { etag });
      return jsonResponse(200, body, withEtag ? { etag } : {});
    };
    const { client, errors, requests } = harness(server, { cache, pollInterval: 1000 });
    await client.ready();
    await vi.advanceTimersByTimeAsync(0);
    expect(errors.map((error) => error.message)).toEqual([`writing "${STORAGE_KEY}" failed: disk full`]);
    await vi.advanceTimersByTimeAsync(1000); // 304
    withEtag = false;
    await vi.advanceTimersByTimeAsync(1000); // 200, same version, no ETag
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(writes).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(client.getStatus()).toMatchObject({ status: 'ready', source: 'network', version: 1, error: null });
    expect(client.get('a')).toBe('v1');

    body = snapshotOf(2, { a: 'v2' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.get('a')).toBe('v2');
    expect(writes.map((value) => JSON.parse(value).snapshot.version)).toEqual([1, 2]);
    expect(errors).toHaveLength(2);
    expect(errors.every((error) => error instanceof StorageError && (error.cause as Error).message === 'disk full')).toBe(true);
    await client.close();
  });

  it('a format-1 record for this key whose snapshot fails the envelope checks is reported, not dropped in silence', async () => {
    // Was a bug: src/storage/snapshot-cache.ts:41-42 — `checkSnapshot(record.snapshot, 'cache')` returns
    // `{ kind: 'invalid', error }` and the error is thrown away; only a record that is not
    // JSON is reported. client.md: "Read and write failures are reported as `StorageError`";
    // the common quality bar: "bad input gets a clear error via onError". A cache entry
    // corrupted into `"flags": null` is as broken as one that is not JSON, yet nobody hears.
    const broken = { format: 1, key: fingerprint(CLIENT_KEY), etag: '"e"', snapshot: { ...snapshotOf(3, {}), flags: null } };
    const cache = createMemoryStorage({ [STORAGE_KEY]: JSON.stringify(broken) });
    const { client, errors } = harness(() => 'hang', { cache });
    expect(client.getStatus().status).toBe('initializing');
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(new RegExp(`^reading "${STORAGE_KEY}" failed: .*flags`))]);
    await client.close();
  });
});
