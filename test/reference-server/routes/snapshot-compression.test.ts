import { afterEach, describe, expect, it } from 'vitest';
import { createCompressionCache, zlibCompressor } from '../../../reference-server/http/compression';
import type { ContentCoding } from '../../../reference-server/http/content-coding';
import { createHttpServer, type HttpServer } from '../../../reference-server/http/http-server';
import { DEFAULT_LIMITS } from '../../../reference-server/http/limits';
import type { HandlerResult } from '../../../reference-server/http/responses';
import { createRequestListener, type HandlerRequest } from '../../../reference-server/http/router';
import { environmentReads } from '../../../reference-server/routes/admin';
import { createSdkRoutes } from '../../../reference-server/routes/sdk';
import type { ReferenceServer } from '../../../reference-server/index';
import { createEventLog } from '../../../reference-server/stores/event-log';
import { createIdentifyLog } from '../../../reference-server/stores/identify-log';
import { createMemoryAnalyticsStore, createMemoryIdentifyQueueStore } from '../../../reference-server/stores/memory-event-stores';
import { decoded, experimentSnapshot, rawGet, type RawAnswer } from '../encoded-get';
import { DEMO, useServers } from '../helpers';

const servers = useServers();
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const BROWSER = 'gzip, deflate, br, zstd';

/** A reference server holding a 60-flag snapshot (version 2), well past the 1 KiB below which nothing is compressed. */
async function withExperiments(): Promise<ReferenceServer> {
  const server = await servers.start();
  await server.publish('production', experimentSnapshot(60));
  return server;
}

const opened: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((http) => http.close()));
});

/** The SDK routes over `server`'s stores, on a port of their own, with a compressor that counts its calls. */
async function countingSdkServer(server: ReferenceServer) {
  const compressed: ContentCoding[] = [];
  const cache = createCompressionCache(DEFAULT_LIMITS.compressedCacheBytes, (coding, body) => {
    compressed.push(coding);
    return zlibCompressor(coding, body);
  });
  const events = { identifyQueue: createMemoryIdentifyQueueStore(createIdentifyLog()), analytics: createMemoryAnalyticsStore(createEventLog()) };
  const http = createHttpServer(
    createRequestListener(createSdkRoutes(server.stores, events, {}, cache), (error) => {
      throw error;
    }),
  );
  opened.push(http);
  await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve));
  const { port } = http.server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, compressed, cache };
}

describe('GET /sdk/v1/snapshot, compressed', () => {
  it.each([
    ['a client key', DEMO.prodClientKey],
    ['a server key', DEMO.prodServerKey],
  ])('answers br, gzip or the body as it is per Accept-Encoding, each decoding to exactly the same JSON (%s)', async (_name, key) => {
    const server = await withExperiments();
    const plain = await rawGet(server.baseUrl, '/sdk/v1/snapshot', auth(key));
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.etag).toBe('"snapshot-2"');
    expect(plain.headers['content-length']).toBe(String(plain.body.length));
    expect(JSON.parse(plain.body.toString())).toMatchObject({ version: 2 });

    for (const [accept, coding] of [
      [BROWSER, 'br'],
      ['gzip, deflate', 'gzip'],
      ['br;q=0.2, gzip;q=0.8', 'gzip'],
    ] as const) {
      const answer = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(key), 'accept-encoding': accept });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(coding);
      expect(answer.headers['content-length']).toBe(String(answer.body.length));
      expect(answer.headers.vary).toBe('Authorization, Accept-Encoding');
      expect(answer.headers.etag).toBe('W/"snapshot-2"');
      expect(answer.headers['content-type']).toBe(plain.headers['content-type']);
      expect(answer.body.length).toBeLessThan(plain.body.length / 5);
      expect(decoded(answer).equals(plain.body)).toBe(true);
    }
  });

  it('compresses once per version, key kind and coding; a 304 compresses nothing; a publish compresses the new version', async () => {
    const server = await withExperiments();
    const { baseUrl, compressed, cache } = await countingSdkServer(server);
    const get = (key: string, accept: string, etag?: string) =>
      rawGet(baseUrl, '/sdk/v1/snapshot', { ...auth(key), 'accept-encoding': accept, ...(etag && { 'if-none-match': etag }) });
    // Concurrent first requests share one compression.
    const first = await Promise.all(Array.from({ length: 8 }, () => get(DEMO.prodClientKey, 'br')));
    for (let i = 0; i < 4; i++) {
      await get(DEMO.prodClientKey, 'br');
      await get(DEMO.prodClientKey, 'gzip');
      await get(DEMO.prodServerKey, 'br');
    }
    expect(compressed.sort()).toEqual(['br', 'br', 'gzip']);
    expect(new Set(first.map((answer) => answer.body.toString('base64'))).size).toBe(1);
    expect((await get(DEMO.prodClientKey, 'gzip', 'W/"snapshot-2"')).status).toBe(304);
    expect(compressed).toHaveLength(3);
    expect(cache.stats().entries).toBe(3);

    await server.publish('production', experimentSnapshot(60, 'b'));
    const fresh = await get(DEMO.prodClientKey, 'br');
    expect(compressed).toHaveLength(4);
    const snapshot = JSON.parse(decoded(fresh).toString());
    expect(snapshot.version).toBe(3);
    expect(Object.keys(snapshot.flags).every((flag) => flag.startsWith('experiment-b-'))).toBe(true);
    // The new version replaced the old one in its slot: nothing of version 2 is served again.
    expect(cache.stats().entries).toBe(3);
    expect(fresh.headers.etag).toBe('W/"snapshot-3"');
  });

  it('answers 304 whichever coding the ETag was got in, with the ETag of the coding asked for now and no body', async () => {
    const server = await withExperiments();
    const plain = await rawGet(server.baseUrl, '/sdk/v1/snapshot', auth(DEMO.prodClientKey));
    const br = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodClientKey), 'accept-encoding': 'br' });
    const cases = [
      [plain.headers.etag!, 'br', 'W/"snapshot-2"'],
      [plain.headers.etag!, 'gzip', 'W/"snapshot-2"'],
      [br.headers.etag!, 'gzip', 'W/"snapshot-2"'],
      [br.headers.etag!, 'identity', '"snapshot-2"'],
      [`"other", ${br.headers.etag!}`, 'br', 'W/"snapshot-2"'],
    ] as const;
    for (const [etag, accept, expected] of cases) {
      const answer = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodClientKey), 'accept-encoding': accept, 'if-none-match': etag });
      expect({ etag, accept, status: answer.status }).toEqual({ etag, accept, status: 304 });
      expect(answer.headers.etag).toBe(expected);
      expect(answer.headers.vary).toBe('Authorization, Accept-Encoding');
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.body.length).toBe(0);
    }
    await server.publish('production', experimentSnapshot(60, 'c'));
    const stale = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodClientKey), 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag! });
    expect(stale.status).toBe(200);
    expect(JSON.parse(decoded(stale).toString()).version).toBe(3);
  });

  it('sends a snapshot under 1 KiB as it is, with its strong ETag and the Vary all the same', async () => {
    const server = await servers.start();
    await server.publish('production', { schemaVersion: 1, flags: {} });
    const answer = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodClientKey), 'accept-encoding': BROWSER });
    expect(answer.body.length).toBeLessThan(1024);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).toBe('"snapshot-2"');
    expect(answer.headers.vary).toBe('Authorization, Accept-Encoding');
    // Identity refused: compressed all the same.
    const refused = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodClientKey), 'accept-encoding': 'gzip, identity;q=0' });
    expect(refused.headers['content-encoding']).toBe('gzip');
    expect(decoded(refused).equals(answer.body)).toBe(true);
  });

  it('sends a body longer than the compressedCacheBytes limit as it is, so the cache’s bound holds', async () => {
    const server = await servers.start({ limits: { compressedCacheBytes: 4096 } });
    await server.publish('production', experimentSnapshot(60));
    const answer = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodServerKey), 'accept-encoding': 'br, gzip' });
    expect(answer.body.length).toBeGreaterThan(4096);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).toBe('"snapshot-2"');
    // 6 flags: between 1 KiB and the limit.
    await server.publish('production', experimentSnapshot(6));
    const fits = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodServerKey), 'accept-encoding': 'br, gzip' });
    expect(fits.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decoded(fits).toString()).version).toBe(3);
  });

  it('answers HEAD with a 405 and no body, compressed or not', async () => {
    const server = await withExperiments();
    const head = await rawGet(server.baseUrl, '/sdk/v1/snapshot', { ...auth(DEMO.prodClientKey), 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('GET, OPTIONS');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.body.length).toBe(0);
  });
});

describe('admin environment listings, compressed', () => {
  it.each([
    ['/admin/v1/environments', 'br'],
    ['/admin/v1/environments/production', 'gzip'],
  ])('%s answers %s per Accept-Encoding, decoding to the JSON sent uncompressed', async (path, coding) => {
    const server = await withExperiments();
    const headers = { authorization: `Bearer ${server.adminToken}` };
    const plain = await rawGet(server.baseUrl, path, headers);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const answer = await rawGet(server.baseUrl, path, { ...headers, 'accept-encoding': coding });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(coding);
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.headers['content-length']).toBe(String(answer.body.length));
    expect(answer.body.length).toBeLessThan(plain.body.length / 5);
    expect(decoded(answer).equals(plain.body)).toBe(true);
    expect(JSON.stringify(JSON.parse(plain.body.toString()))).toContain('"experiment-a-59"');
  });
});

describe('the environment listings’ compressed bodies', () => {
  it('are compressed once per content: again only when a publish or the stream count changes it', async () => {
    const server = await withExperiments();
    const compressed: string[] = [];
    const cache = createCompressionCache(DEFAULT_LIMITS.compressedCacheBytes, (coding, body) => {
      compressed.push(coding);
      return zlibCompressor(coding, body);
    });
    let streams = 0;
    const reads = environmentReads(server.stores.environments, () => streams, cache);
    const request = (accept: string): HandlerRequest => ({
      method: 'GET',
      path: '/admin/v1/environments',
      params: {},
      query: new URLSearchParams(),
      headers: { 'accept-encoding': accept },
      remoteAddress: '127.0.0.1',
      readBody: () => Promise.reject(new Error('a GET has no body')),
    });
    const listed = async (accept: string) => JSON.parse(decoded(asRaw(await reads.list(request(accept)))).toString());
    for (let i = 0; i < 3; i++) {
      await listed('br');
      await reads.one(request('br'), 'production');
    }
    expect(compressed).toEqual(['br', 'br']);
    streams = 4;
    expect((await listed('br')).environments[0].streams).toBe(4);
    expect(compressed).toHaveLength(3);
    await server.publish('production', experimentSnapshot(60, 'd'));
    const after = await listed('br');
    expect(compressed).toHaveLength(4);
    expect(after.environments.find((environment: { id: string }) => environment.id === 'production').version).toBe(3);
  });
});

/** A handler's answer as the bytes and headers it would send. */
function asRaw(result: HandlerResult): RawAnswer {
  const content = result.file!.content;
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return { status: result.status, headers, body: typeof content === 'string' ? Buffer.from(content) : content };
}
