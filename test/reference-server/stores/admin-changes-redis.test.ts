// The admin change feed with two instances on one Redis: what one changes, the other's feed tells.
import { afterEach, expect, it } from 'vitest';
import { demoConfig } from '../../../reference-server/index';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { admin, DEMO, useServers } from '../helpers';
import { openFeed, type FeedClient } from '../feed-client';
import { freshPrefix, redisNeed, useRedisProcess } from './engines-fixture';

describeWithBinaries('the admin change feed across instances on Redis', [redisNeed], () => {
  const redis = useRedisProcess();
  const servers = useServers();
  const feeds: FeedClient[] = [];
  afterEach(() => {
    for (const feed of feeds.splice(0)) feed.close();
  });

  it("tells B's feed of a publish, a key, traits and a resync made through A, once each", async () => {
    const shared = { redis: redis.url, redisPrefix: freshPrefix(), config: { ...demoConfig(), adminToken: DEMO.adminToken } };
    const a = await servers.start({ ...shared, allowDemoCredentials: true });
    const b = await servers.start({ ...shared, allowDemoCredentials: true });
    const feed = await openFeed(b);
    feeds.push(feed);
    await feed.next('ready');

    const flag = { on: true, clientSide: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 's' };
    const { version } = (await (await admin(a, 'PUT', '/environments/production/flags/from-a', flag)).json()) as { version: number };
    expect(await feed.next('published')).toEqual({ kind: 'published', environmentId: 'production', version });
    const { key } = (await (await admin(a, 'POST', '/environments/staging/keys', { kind: 'client' })).json()) as { key: string };
    expect(await feed.next('key-added')).toEqual({ kind: 'key-added', environmentId: 'staging', key });
    await admin(a, 'DELETE', `/keys/${key}`);
    expect(await feed.next('key-revoked')).toEqual({ kind: 'key-revoked', environmentId: 'staging', key });
    await admin(a, 'PUT', '/environments/staging/traits/u-1', { plan: 'pro' });
    expect(await feed.next('traits-set')).toEqual({ kind: 'traits-set', environmentId: 'staging', userId: 'u-1' });
    await admin(a, 'POST', '/environments/staging/resync');
    expect(await feed.next('resync')).toEqual({ kind: 'resync', environmentId: 'staging' });
    // B re-reads what the feed named and finds A's version.
    const entry = (await (await admin(b, 'GET', '/environments/production')).json()) as { version: number };
    expect(entry.version).toBe(version);
    expect(feed.events.filter((event) => event.event === 'published')).toHaveLength(1);
  });
});
