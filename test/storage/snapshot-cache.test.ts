import { afterEach, describe, expect, it, vi } from 'vitest';
import { fingerprint } from '../../src/shared/fingerprint';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { harness } from '../helpers/client-harness';
import { jsonResponse } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

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
