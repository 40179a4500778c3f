// Issue 17, part 1: every store bounded, what is evicted counted, admin listings paginated,
// SDK routes rate limited per key, streams limited per key and in all.
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { resolveLimits } from '../../reference-server/http/limits';
import { admin, call, DEMO, errorOf, NOW, useServers } from './helpers';

const servers = useServers();

const evaluation = (key: string, userId = 'u') => ({ type: 'evaluation', key, reason: 'DEFAULT', value: true, userId });
const post = (server: Parameters<typeof call>[0], events: unknown[], key: string = DEMO.prodClientKey) =>
  call(server, '/sdk/v1/events', { key, method: 'POST', body: { sentAt: NOW(), events } });
const flag = (n: number) => ({ on: true, variations: [n], offVariation: 0, rules: [], fallthrough: { variation: 0 }, salt: 's', clientSide: true });

describe('bounded stores', () => {
  it('keeps eventsPerKind events per environment and type, the newest, and counts the rest', async () => {
    const server = await servers.start({ limits: { eventsPerKind: 5 } });
    for (let batch = 0; batch < 3; batch++) {
      const events = Array.from({ length: 4 }, (_, i) => evaluation(`f-${batch * 4 + i}`));
      expect((await post(server, [...events, { type: 'unregistered_flag', key: `u-${batch}` }])).status).toBe(202);
    }
    expect(server.stores.analytics.events.map((event) => event.key)).toEqual(['f-7', 'f-8', 'f-9', 'f-10', 'f-11']);
    // Another type has a bound of its own: the three unregistered_flag events stay.
    expect(server.stores.diagnostics.events.map((event) => event.key)).toEqual(['u-0', 'u-1', 'u-2']);
    expect(server.stores.evictions.events).toBe(7);
    const diagnostics = await (await admin(server, 'GET', '/diagnostics')).json();
    expect(diagnostics.evicted).toMatchObject({ events: 7, identifyRows: 0, snapshotVersions: 0 });
  });

  it('keeps identifyRows rows per environment', async () => {
    const server = await servers.start({ limits: { identifyRows: 2 } });
    await post(server, ['a', 'b', 'c'].map((userId) => ({ type: 'identify', userId, traits: {} })));
    await post(server, [{ type: 'identify', userId: 'staging-user', traits: {} }], DEMO.stagingClientKey);
    expect(server.stores.identifyQueue.forEnvironment('production').map((row) => row.userId)).toEqual(['b', 'c']);
    expect(server.stores.identifyQueue.forEnvironment('staging').map((row) => row.userId)).toEqual(['staging-user']);
    expect(server.stores.evictions.identifyRows).toBe(1);
  });

  it('keeps snapshotVersions versions, the current one always among them, and serves the current one', async () => {
    const server = await servers.start({ limits: { snapshotVersions: 3 } });
    let last = 0;
    for (let n = 0; n < 6; n++) last = (await server.publish('production', { schemaVersion: 1, flags: { n: flag(n) } })).version;
    const { kv } = server.stores.environments.get('production')!;
    expect([...kv.snapshots.keys()]).toEqual([last - 2, last - 1, last]);
    expect(server.stores.evictions.snapshotVersions).toBe(4);
    const body = await (await call(server, '/sdk/v1/snapshot')).json();
    expect(body).toMatchObject({ version: last, flags: { n: { variations: [5] } } });
  });

  it('keeps traitUsers users per environment, dropping the least recently written', async () => {
    const server = await servers.start({ limits: { traitUsers: 2 } });
    await server.setTraits('production', 'a', { plan: 'a' });
    await server.setTraits('production', 'b', { plan: 'b' });
    await server.setTraits('production', 'a', { plan: 'a2' });
    // The demo config's own users went first.
    const before = server.stores.evictions.traitUsers;
    await server.setTraits('production', 'c', { plan: 'c' });
    const traitsOf = async (userId: string) => (await (await call(server, `/sdk/v1/identity?userId=${userId}`)).json()).traits;
    expect(await traitsOf('a')).toEqual({ plan: 'a2' });
    expect(await traitsOf('b')).toEqual({});
    expect(await traitsOf('c')).toEqual({ plan: 'c' });
    expect(server.stores.evictions.traitUsers).toBe(before + 1);
  });

  it('checks its limits: unknown names and values that are not whole numbers are errors', () => {
    expect(resolveLimits({}).eventsPerKind).toBe(10_000);
    expect(() => resolveLimits({ eventsPerKind: 0 })).toThrow(/eventsPerKind must be a whole number from 1/);
    expect(() => resolveLimits({ requestsPerSecondPerKey: 1.5 })).toThrow(/requestsPerSecondPerKey/);
    expect(() => resolveLimits({ nope: 1 } as never)).toThrow(/unknown limit "nope"/);
  });
});

describe('admin listings are pages', () => {
  it('walks every event with limit and cursor, newest page first, and stops with no nextCursor', async () => {
    const server = await servers.start();
    await post(server, Array.from({ length: 25 }, (_, i) => evaluation(`f-${i}`)));
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await (await admin(server, 'GET', `/analytics?limit=10${cursor ? `&cursor=${cursor}` : ''}`)).json();
      seen.push(page.events.map((event: { key: string }) => event.key));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.map((page) => page.length)).toEqual([10, 10, 5]);
    expect(seen.reverse().flat()).toEqual(Array.from({ length: 25 }, (_, i) => `f-${i}`));
  });

  it('answers at most 100 entries by default and 1000 on request; more is a 400', async () => {
    const server = await servers.start();
    await post(server, Array.from({ length: 150 }, (_, i) => evaluation(`f-${i}`, `user-${i}`)).slice(0, 150));
    const page = await (await admin(server, 'GET', '/analytics')).json();
    expect(page.events).toHaveLength(100);
    expect(page.nextCursor).toBeDefined();
    const refused = await admin(server, 'GET', '/analytics?limit=1001');
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toMatchObject({ code: 'invalid_request', path: 'limit' });
    expect((await admin(server, 'GET', '/analytics?cursor=abc')).status).toBe(400);
  });

  it('pages the identify queue and the keys the same way', async () => {
    const server = await servers.start();
    await post(server, ['a', 'b', 'c'].map((userId) => ({ type: 'identify', userId, traits: {} })));
    const first = await (await admin(server, 'GET', '/environments/production/identify-queue?limit=2')).json();
    expect(first.rows.map((row: { userId: string }) => row.userId)).toEqual(['b', 'c']);
    const second = await (await admin(server, 'GET', `/environments/production/identify-queue?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second).toEqual({ rows: [expect.objectContaining({ userId: 'a' })] });
    for (let i = 0; i < 3; i++) await server.createKey('staging', 'client');
    const keys = await (await admin(server, 'GET', '/keys?limit=2')).json();
    expect(keys.keys).toHaveLength(2);
    const rest = await (await admin(server, 'GET', `/keys?limit=100&cursor=${keys.nextCursor}`)).json();
    expect(rest.nextCursor).toBeUndefined();
    expect([...rest.keys, ...keys.keys].map((key: { key: string }) => key.key)).toEqual(server.stores.keys.list().map((key) => key.key));
  });
});

describe('rate limits', () => {
  it('are off by default', async () => {
    const server = await servers.start();
    const statuses = await Promise.all(Array.from({ length: 60 }, () => call(server, '/sdk/v1/snapshot').then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('answer 429 with Retry-After past requestsPerSecondPerKey (bursts of twice that), per key', async () => {
    const server = await servers.start({ limits: { requestsPerSecondPerKey: 5 } });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call(server, '/sdk/v1/snapshot')).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    const limited = await call(server, '/sdk/v1/snapshot');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    expect(await errorOf(limited)).toMatchObject({ code: 'rate_limited' });
    // Another key has its own bucket.
    expect((await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).status).toBe(200);
    expect(server.stores.evictions.requestsLimited).toBeGreaterThanOrEqual(3);
  });
});

describe('stream limits', () => {
  const open = (server: Parameters<typeof call>[0], key: string) =>
    new Promise<{ status: number; retryAfter?: string; ws?: WebSocket }>((resolve) => {
      const ws = new WebSocket(`${server.wsUrl}/sdk/v1/stream`, ['flagplane.v1', `flagplane.key.${key}`]);
      ws.once('open', () => resolve({ status: 101, ws }));
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string }));
      ws.once('error', () => undefined);
    });

  it('refuse a key’s handshake past streamsPerKey with 429, and past streamsTotal with 503', async () => {
    const server = await servers.start({ limits: { streamsPerKey: 2, streamsTotal: 3 } });
    const sockets: WebSocket[] = [];
    try {
      for (let i = 0; i < 2; i++) sockets.push((await open(server, DEMO.prodClientKey)).ws!);
      expect(await open(server, DEMO.prodClientKey)).toMatchObject({ status: 429, retryAfter: '5' });
      sockets.push((await open(server, DEMO.prodServerKey)).ws!);
      expect((await open(server, DEMO.stagingClientKey)).status).toBe(503);
      expect(server.stores.evictions.streamsRefused).toBe(2);
      // A closed stream frees its place.
      sockets.shift()!.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = await open(server, DEMO.prodClientKey);
      expect(again.status).toBe(101);
      sockets.push(again.ws!);
    } finally {
      for (const ws of sockets) ws.terminate();
    }
  });
});
