// Issue 27, part 1: limits that fit a shared client key. Streams and requests are limited per
// connection address (the client's, behind trusted proxies), not per key; the total cap stays.
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { DEFAULT_LIMITS, resolveLimits } from '../../reference-server/http/limits';
import type { ReferenceServer } from '../../reference-server/index';
import { call, DEMO, errorOf, useServers } from './helpers';

const servers = useServers();

type Handshake = { status: number; retryAfter?: string; body?: string; ws?: WebSocket };

/** Opens a stream of `key`, optionally claiming to come from `forwardedFor`; resolves with the handshake's outcome. */
function open(server: ReferenceServer, key: string, forwardedFor?: string): Promise<Handshake> {
  const headers = forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor };
  const ws = new WebSocket(`${server.wsUrl}/sdk/v1/stream`, ['flagplane.v1', `flagplane.key.${key}`], { headers });
  sockets.push(ws);
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ status: 101, ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string, body }));
    });
    ws.once('error', () => undefined);
  });
}

const sockets: WebSocket[] = [];
const openAll = async (server: ReferenceServer, key: string, from: Array<string | undefined>) => {
  const outcomes: Handshake[] = [];
  for (const address of from) outcomes.push(await open(server, key, address));
  return outcomes.map((outcome) => outcome.status);
};

describe('the defaults', () => {
  it('limit streams per address, not per key: one client key may hold as many streams as the total cap', () => {
    const limits = resolveLimits({});
    expect(limits).toMatchObject({ streamsPerAddress: 500, streamsPerKey: 0, streamsTotal: 10_000, requestsPerSecondPerAddress: 0, requestsPerSecondPerKey: 0 });
    expect(DEFAULT_LIMITS.streamsPerKey).toBe(0);
  });

  it('spell "no limit" 0 for the per-address and per-key limits only', () => {
    expect(resolveLimits({ streamsPerKey: 0, streamsPerAddress: 0, requestsPerSecondPerAddress: 0 })).toMatchObject({ streamsPerKey: 0, streamsPerAddress: 0 });
    expect(() => resolveLimits({ streamsTotal: 0 })).toThrow(/streamsTotal must be a whole number from 1, not 0/);
    expect(() => resolveLimits({ streamsPerAddress: -1 })).toThrow(/streamsPerAddress must be a whole number from 0 \(0 is no limit\)/);
    expect(() => resolveLimits({ requestsPerSecondPerAddress: 2.5 })).toThrow(/requestsPerSecondPerAddress/);
  });
});

describe('streams per address', () => {
  it('lets one key open streamsPerAddress streams from one address, then answers 429 with Retry-After, counted', async () => {
    const server = await servers.start({ limits: { streamsPerAddress: 4 } });
    try {
      expect(await openAll(server, DEMO.prodClientKey, Array(4).fill(undefined))).toEqual([101, 101, 101, 101]);
      const refused = await open(server, DEMO.prodClientKey);
      expect(refused).toMatchObject({ status: 429, retryAfter: '5' });
      expect(JSON.parse(refused.body!)).toEqual({ error: { code: 'rate_limited', message: 'this address holds its limit of 4 streams' } });
      // Another key from the same address is the same client.
      expect((await open(server, DEMO.stagingClientKey)).status).toBe(429);
      expect(server.stores.evictions.streamsRefused).toBe(2);
      // A closed stream frees its place.
      sockets[0]!.close();
      await new Promise((resolve) => sockets[0]!.once('close', resolve));
      expect((await open(server, DEMO.prodClientKey)).status).toBe(101);
    } finally {
      for (const ws of sockets.splice(0)) ws.terminate();
    }
  });

  it('counts each client behind a trusted proxy: one key holds more streams than the per-address limit', async () => {
    const server = await servers.start({ limits: { streamsPerAddress: 2 }, trustProxy: ['127.0.0.0/8', '::1'] });
    try {
      const clients = ['203.0.113.1', '203.0.113.2', '2001:db8::1', '203.0.113.1', '203.0.113.2', '2001:db8::2'];
      expect(await openAll(server, DEMO.prodClientKey, clients)).toEqual(Array(6).fill(101));
      // 2001:db8::1 and ::2 share a /64, which holds its two.
      expect(await openAll(server, DEMO.prodClientKey, ['203.0.113.1', '2001:db8::3', '203.0.113.3'])).toEqual([429, 429, 101]);
    } finally {
      for (const ws of sockets.splice(0)) ws.terminate();
    }
  });

  it('ignores the X-Forwarded-For of a peer that is not a trusted proxy', async () => {
    const untrusted = await servers.start({ limits: { streamsPerAddress: 2 }, trustProxy: ['10.0.0.0/8'] });
    const none = await servers.start({ limits: { streamsPerAddress: 2 } });
    try {
      for (const server of [untrusted, none]) {
        expect(await openAll(server, DEMO.prodClientKey, ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([101, 101, 429]);
      }
    } finally {
      for (const ws of sockets.splice(0)) ws.terminate();
    }
  });

  it('keeps the total cap (503) and, when set, the per-key limit (429) over distinct addresses', async () => {
    const server = await servers.start({ limits: { streamsTotal: 5, streamsPerKey: 3 }, trustProxy: ['127.0.0.1'] });
    try {
      const from = (n: number) => Array.from({ length: n }, (_, i) => `198.51.100.${i + 1}`);
      expect(await openAll(server, DEMO.prodServerKey, from(4))).toEqual([101, 101, 101, 429]);
      const refused = await open(server, DEMO.prodServerKey, '192.0.2.1');
      expect(JSON.parse(refused.body!).error.message).toBe('this SDK key holds its limit of 3 streams');
      expect(await openAll(server, DEMO.prodClientKey, from(3))).toEqual([101, 101, 503]);
      expect(server.stores.evictions.streamsRefused).toBe(3);
    } finally {
      for (const ws of sockets.splice(0)) ws.terminate();
    }
  });

  it('with the defaults, lets one client key hold every stream of the total cap', async () => {
    const server = await servers.start({ limits: { streamsTotal: 12 }, trustProxy: ['127.0.0.1'] });
    try {
      const from = Array.from({ length: 13 }, (_, i) => `198.51.100.${i + 1}`);
      expect(await openAll(server, DEMO.prodClientKey, from)).toEqual([...Array(12).fill(101), 503]);
    } finally {
      for (const ws of sockets.splice(0)) ws.terminate();
    }
  });
});

describe('requests per second per address', () => {
  const snapshot = (server: ReferenceServer, key: string, forwardedFor?: string) =>
    call(server, '/sdk/v1/snapshot', { key, headers: forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor } });

  it('answers 429 with Retry-After past the rate (bursts of twice it) whatever the key, bad keys included', async () => {
    const server = await servers.start({ limits: { requestsPerSecondPerAddress: 1 } });
    const unknownKey = 'svc_sdk_client_nobody_knows_me';
    expect([(await snapshot(server, DEMO.prodClientKey)).status, (await snapshot(server, unknownKey)).status]).toEqual([200, 401]);
    const limited = await snapshot(server, DEMO.stagingServerKey);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    expect(await errorOf(limited)).toEqual({ code: 'rate_limited', message: 'too many requests from this address: retry after Retry-After seconds' });
    expect((await snapshot(server, unknownKey)).status).toBe(429);
    expect(server.stores.evictions.requestsLimited).toBe(2);
  });

  it('spends the same bucket on stream handshakes, counted as requests limited', async () => {
    const server = await servers.start({ limits: { requestsPerSecondPerAddress: 1 } });
    try {
      expect((await open(server, DEMO.prodClientKey)).status).toBe(101);
      expect((await snapshot(server, DEMO.prodClientKey)).status).toBe(200);
      const refused = await open(server, DEMO.prodClientKey);
      expect(refused).toMatchObject({ status: 429, retryAfter: '1' });
      expect(JSON.parse(refused.body!).error.code).toBe('rate_limited');
      expect((await snapshot(server, DEMO.prodClientKey)).status).toBe(429);
      expect(server.stores.evictions).toMatchObject({ requestsLimited: 2, streamsRefused: 0 });
    } finally {
      for (const ws of sockets.splice(0)) ws.terminate();
    }
  });

  it('gives each client behind a trusted proxy its own bucket, and none to an untrusted peer’s claims', async () => {
    const trusted = await servers.start({ limits: { requestsPerSecondPerAddress: 1 }, trustProxy: ['127.0.0.1'] });
    const statuses = async (server: ReferenceServer, from: string[]) => {
      const all: number[] = [];
      for (const address of from) all.push((await snapshot(server, DEMO.prodClientKey, address)).status);
      return all;
    };
    expect(await statuses(trusted, ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2', '203.0.113.2'])).toEqual([200, 200, 429, 200, 200]);
    const untrusted = await servers.start({ limits: { requestsPerSecondPerAddress: 1 } });
    expect(await statuses(untrusted, ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([200, 200, 429]);
  });
});
