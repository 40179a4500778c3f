// Compressed snapshots on two instances sharing one Redis: each compresses a version once for
// itself, and an ETag got from one in any coding revalidates at the other.
import { expect, it } from 'vitest';
import { demoConfig } from '../../../reference-server/index';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { waitFor } from '../../helpers/wait-for';
import { decoded, experimentSnapshot, rawGet } from '../encoded-get';
import { DEMO, useServers } from '../helpers';
import { freshPrefix, redisNeed, useRedisProcess } from './engines-fixture';

describeWithBinaries('compressed snapshots on two instances of one Redis', [redisNeed], () => {
  const redis = useRedisProcess();
  const servers = useServers();

  it('serves the same JSON from both in every coding, and a 304 at B for the ETag A gave in another coding', async () => {
    const shared = { redis: redis.url, redisPrefix: freshPrefix(), config: { ...demoConfig(), adminToken: DEMO.adminToken }, allowDemoCredentials: true };
    const a = await servers.start(shared);
    const b = await servers.start(shared);
    const { version } = await a.publish('production', experimentSnapshot(60));
    const auth = { authorization: `Bearer ${DEMO.prodClientKey}` };
    await waitFor(() => b.stores.environments.current('production')?.version === version, 5000, 'B at the published version');

    const fromA = await rawGet(a.baseUrl, '/sdk/v1/snapshot', { ...auth, 'accept-encoding': 'br' });
    const plainB = await rawGet(b.baseUrl, '/sdk/v1/snapshot', auth);
    const gzipB = await rawGet(b.baseUrl, '/sdk/v1/snapshot', { ...auth, 'accept-encoding': 'gzip' });
    expect([fromA.headers['content-encoding'], plainB.headers['content-encoding'], gzipB.headers['content-encoding']]).toEqual(['br', undefined, 'gzip']);
    expect(decoded(fromA).equals(plainB.body)).toBe(true);
    expect(decoded(gzipB).equals(plainB.body)).toBe(true);
    expect(JSON.parse(plainB.body.toString()).version).toBe(version);

    const revalidated = await rawGet(b.baseUrl, '/sdk/v1/snapshot', { ...auth, 'if-none-match': fromA.headers.etag! });
    expect(fromA.headers.etag).toBe(`W/"snapshot-${version}"`);
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(`"snapshot-${version}"`);
  });
});
