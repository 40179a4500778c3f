// GET /admin/v1/changes: the admin change feed, over real HTTP on port 0.
import { afterEach, describe, expect, it } from 'vitest';
import { admin, call, DEMO, errorOf, NOW, sleep, useServers } from '../helpers';
import { openFeed, type FeedClient } from '../feed-client';

const servers = useServers();
const feeds: FeedClient[] = [];
afterEach(() => {
  for (const feed of feeds.splice(0)) feed.close();
});
const follow = async (...args: Parameters<typeof openFeed>) => {
  const feed = await openFeed(...args);
  feeds.push(feed);
  return feed;
};
const flag = { on: true, clientSide: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 's' };

describe('the admin change feed', () => {
  it('needs the admin token: 401 in the error shape without it or with another', async () => {
    const server = await servers.start();
    for (const token of ['', 'not-the-token']) {
      const feed = await follow(server, token);
      expect(feed.status).toBe(401);
      expect((await errorOf(feed.response)).code).toBe('unauthorized');
    }
  });

  it('opens with ready and the heartbeat interval, as text/event-stream', async () => {
    const server = await servers.start({ changeFeedHeartbeatMs: 25_000 });
    const feed = await follow(server);
    expect(feed.status).toBe(200);
    expect(feed.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(feed.response.headers.get('cache-control')).toBe('no-store');
    expect(await feed.next('ready')).toEqual({ heartbeatMs: 25_000 });
  });

  it('sends one event per change an operator makes, through the admin API and the programmatic API', async () => {
    const server = await servers.start();
    const feed = await follow(server);
    await feed.next('ready');
    const before = server.stores.environments.get('production')!.kv.current;

    expect((await admin(server, 'PUT', '/environments/production/flags/from-feed', flag)).status).toBe(200);
    expect(await feed.next('published')).toEqual({ kind: 'published', environmentId: 'production', version: before + 1 });
    await server.publish('staging', { schemaVersion: 1, flags: {} });
    expect(await feed.next('published')).toMatchObject({ environmentId: 'staging' });

    const created = (await (await admin(server, 'POST', '/environments/staging/keys', { kind: 'server' })).json()) as { key: string };
    expect(await feed.next('key-added')).toEqual({ kind: 'key-added', environmentId: 'staging', key: created.key });
    expect((await admin(server, 'DELETE', `/keys/${created.key}`)).status).toBe(204);
    expect(await feed.next('key-revoked')).toEqual({ kind: 'key-revoked', environmentId: 'staging', key: created.key });
    await admin(server, 'PUT', '/environments/production/traits/u-9', { plan: 'pro' });
    expect(await feed.next('traits-set')).toEqual({ kind: 'traits-set', environmentId: 'production', userId: 'u-9' });
    await admin(server, 'POST', '/environments/production/resync');
    expect(await feed.next('resync')).toEqual({ kind: 'resync', environmentId: 'production' });
    // A refused change tells nobody.
    expect((await admin(server, 'PUT', '/environments/production/flags/bad', { on: 'yes' })).status).toBe(400);
    await sleep(100);
    expect(feed.events.filter((event) => event.event === 'published')).toHaveLength(2);
  });

  it('reports stream counts and accepted events at most once a tick, and nothing but heartbeats while idle', async () => {
    const server = await servers.start({ changeFeedHeartbeatMs: 100 });
    const feed = await follow(server);
    await feed.next('ready');
    await servers.subscribe(server, DEMO.prodClientKey, 'production', null);
    expect(await feed.next('streams')).toEqual({ kind: 'streams', environmentId: 'production', streams: 1 });

    const events = [
      { type: 'identify', userId: 'u-1', traits: {} },
      { type: 'evaluation', key: 'new-checkout', reason: 'FALLTHROUGH', value: true, userId: 'u-1' },
      { type: 'error', message: 'boom' },
      { type: 'error', message: 'boom again' },
    ];
    for (let i = 0; i < 3; i++) expect((await call(server, '/sdk/v1/events', { method: 'POST', key: DEMO.prodClientKey, body: { sentAt: NOW(), events } })).status).toBe(202);
    const reported = await feed.next('events');
    expect(reported).toEqual({ kind: 'events', environmentId: 'production', identify: 3, analytics: 3, diagnostics: 6 });

    await sleep(1300);
    const idleFrom = { events: feed.events.length, bytes: feed.bytes() };
    await sleep(1000);
    expect(feed.events.length, JSON.stringify(feed.events.slice(idleFrom.events))).toBe(idleFrom.events);
    // ": heartbeat\n\n" every 100 ms.
    expect(feed.bytes() - idleFrom.bytes).toBeGreaterThanOrEqual(5 * ': heartbeat\n\n'.length);
  });

  it('refuses a feed past changeFeeds with a 503 and Retry-After; a closed feed frees its place', async () => {
    const server = await servers.start({ limits: { changeFeeds: 2 } });
    const first = await follow(server);
    await first.next('ready');
    await (await follow(server)).next('ready');
    const refused = await follow(server);
    expect(refused.status).toBe(503);
    expect(refused.response.headers.get('retry-after')).toBe('5');
    expect(await errorOf(refused.response)).toMatchObject({ code: 'unavailable', message: expect.stringContaining('changeFeeds') });
    first.close();
    await first.ended;
    let again = await follow(server);
    for (let i = 0; again.status === 503 && i < 20; i++) {
      await sleep(25);
      again = await follow(server);
    }
    expect(again.status).toBe(200);
  });

  it('close() ends every feed at once and leaves no timer', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const baseline = timers();
    const server = await servers.start({ changeFeedHeartbeatMs: 50 });
    const feeds = [await follow(server), await follow(server)];
    for (const feed of feeds) await feed.next('ready');
    expect(timers()).toBeGreaterThan(baseline);
    const started = performance.now();
    await server.close();
    // Well under the 2 s grace close() gives requests in flight: the feeds did not hold it.
    expect(performance.now() - started).toBeLessThan(1000);
    await Promise.all(feeds.map((feed) => feed.ended));
    expect(timers()).toBe(baseline);
  });

  it('stops its timers when the last feed closes', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const server = await servers.start({ changeFeedHeartbeatMs: 50 });
    const baseline = timers();
    const feed = await follow(server);
    await feed.next('ready');
    expect(timers()).toBe(baseline + 2);
    feed.close();
    await feed.ended;
    for (let i = 0; timers() !== baseline && i < 40; i++) await sleep(25);
    expect(timers()).toBe(baseline);
  });
});

describe('GET /admin/v1/environments/:id', () => {
  it('answers the entry the listing holds, and 404 for an unknown environment', async () => {
    const server = await servers.start();
    const { environments } = (await (await admin(server, 'GET', '/environments')).json()) as { environments: Array<{ id: string }> };
    const one = await admin(server, 'GET', '/environments/staging');
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(environments.find((environment) => environment.id === 'staging'));
    const unknown = await admin(server, 'GET', '/environments/nope');
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('not_found');
  });
});
