import { describe, expect, it } from 'vitest';
import demo from '../../../reference-server/demo.json';
import { ifNoneMatchHits } from '../../../reference-server/http/etag';
import { call, DEMO, errorOf, useServers } from '../helpers';
import { parseResponses, rawExchange, snapshotRequest } from '../raw-http';

const servers = useServers();

const prodFlags = demo.environments[0]!.snapshot.flags as Record<string, { clientSide: boolean }>;

describe('GET /sdk/v1/snapshot', () => {
  it('answers the snapshot of the key’s environment with ETag, no-cache and Vary', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { key: DEMO.prodServerKey, headers: { 'accept-encoding': 'identity' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"snapshot-1"');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('vary')).toBe('Authorization, Accept-Encoding');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toMatchObject({ schemaVersion: 1, version: 1, environmentId: 'production' });
    expect(Object.keys(body.flags).sort()).toEqual(Object.keys(prodFlags).sort());

    const staging = await call(server, '/sdk/v1/snapshot', { key: DEMO.stagingServerKey });
    expect((await staging.json()).environmentId).toBe('staging');
  });

  // The body of a 200 is serialised once per snapshot and key kind: a cache that outlived a
  // publish, or served one kind's body to the other, would show here.
  it('serves each version’s own body to each key kind, publish after publish', async () => {
    const server = await servers.start();
    const bodyOf = async (key: string) => (await call(server, '/sdk/v1/snapshot', { key })).text();
    const first = await bodyOf(DEMO.prodClientKey);
    expect(await bodyOf(DEMO.prodClientKey)).toBe(first);
    expect(JSON.parse(await bodyOf(DEMO.prodServerKey)).flags).toHaveProperty('payments-provider');
    expect(JSON.parse(first).flags).not.toHaveProperty('payments-provider');
    for (const text of ['one', 'two']) {
      const snapshot = { schemaVersion: 1, flags: { banner: { on: true, variations: [text], offVariation: 0, rules: [], fallthrough: { variation: 0 }, salt: 's', clientSide: true } } };
      const { version } = await server.publish('production', snapshot);
      for (const key of [DEMO.prodClientKey, DEMO.prodServerKey]) {
        expect(JSON.parse(await bodyOf(key))).toMatchObject({ version, flags: { banner: { variations: [text] } } });
      }
    }
    expect(JSON.parse(await bodyOf(DEMO.stagingClientKey)).environmentId).toBe('staging');
  });

  it('gives client keys only clientSide flags, and server keys every flag', async () => {
    const server = await servers.start();
    const serverBody = await (await call(server, '/sdk/v1/snapshot', { key: DEMO.prodServerKey })).json();
    const clientBody = await (await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).json();
    const expected = Object.keys(prodFlags).filter((key) => prodFlags[key]!.clientSide);
    expect(expected.length).toBeLessThan(Object.keys(prodFlags).length);
    expect(Object.keys(clientBody.flags).sort()).toEqual(expected.sort());
    expect(serverBody.flags['payments-provider'].clientSide).toBe(false);
    expect(clientBody.flags['payments-provider']).toBeUndefined();
    expect(clientBody.version).toBe(serverBody.version);
  });

  it.each([
    ['the exact ETag', '"snapshot-1"'],
    ['a weak ETag', 'W/"snapshot-1"'],
    ['a list holding it', '"snapshot-0", W/"snapshot-1"'],
    ['a list without spaces', '"x","snapshot-1"'],
    ['*', '*'],
  ])('answers 304 with the ETag headers for If-None-Match: %s', async (_name, header) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { headers: { 'if-none-match': header, 'accept-encoding': 'identity' } });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe('"snapshot-1"');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('vary')).toBe('Authorization, Accept-Encoding');
    expect(await response.text()).toBe('');
  });

  it.each([['"snapshot-2"'], ['"snapshot-10"'], ['snapshot-1'], ['"snapshot-1,"'], ['W/"snapshot-11"']])(
    'answers 200 when If-None-Match %s does not match',
    async (header) => {
      const server = await servers.start();
      const response = await call(server, '/sdk/v1/snapshot', { headers: { 'if-none-match': header } });
      expect(response.status).toBe(200);
    },
  );

  it('moves the ETag and version forward after a publish', async () => {
    const server = await servers.start();
    const { version } = await server.publish('production', { ...demo.environments[0]!.snapshot, flags: {} });
    expect(version).toBe(2);
    const stale = await call(server, '/sdk/v1/snapshot', { headers: { 'if-none-match': '"snapshot-1"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe('"snapshot-2"');
    expect(await stale.json()).toMatchObject({ version: 2, environmentId: 'production', flags: {} });
  });

  it('accepts minVersion and still answers the current snapshot when it is behind', async () => {
    const server = await servers.start();
    const ahead = await call(server, '/sdk/v1/snapshot?minVersion=7');
    expect(ahead.status).toBe(200);
    expect((await ahead.json()).version).toBe(1);
    const matching = await call(server, '/sdk/v1/snapshot?minVersion=0', { headers: { 'if-none-match': '"snapshot-1"' } });
    expect(matching.status).toBe(304);
  });

  it('takes the minimum version from the Flagplane-Min-Version header, as clients send it', async () => {
    const server = await servers.start();
    const ahead = await call(server, '/sdk/v1/snapshot', { headers: { 'flagplane-min-version': '7' } });
    expect(ahead.status).toBe(200);
    expect((await ahead.json()).version).toBe(1);
    const matching = await call(server, '/sdk/v1/snapshot', { headers: { 'flagplane-min-version': '1', 'if-none-match': '"snapshot-1"' } });
    expect(matching.status).toBe(304);
  });

  it.each([['-1'], ['1.5'], ['abc'], [''], ['1e3'], ['2, 3']])('rejects a Flagplane-Min-Version of %j with 400', async (value) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { headers: { 'flagplane-min-version': value } });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_request', path: 'Flagplane-Min-Version' });
    // A valid header does not excuse an invalid query.
    const both = await call(server, '/sdk/v1/snapshot?minVersion=x', { headers: { 'flagplane-min-version': '1' } });
    expect(await errorOf(both)).toMatchObject({ code: 'invalid_request', path: 'minVersion' });
  });

  it.each([['-1'], ['1.5'], ['abc'], [''], ['1e3'], ['2&minVersion=3']])('rejects minVersion=%s with 400', async (value) => {
    const server = await servers.start();
    const response = await call(server, `/sdk/v1/snapshot?minVersion=${value}`);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_request', path: 'minVersion' });
  });
});

describe('ifNoneMatchHits', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['"snapshot-1"', true],
    ['W/"snapshot-1"', true],
    ['"a,b", "snapshot-1"', true],
    ['"a,snapshot-1"', false],
    ['"snapshot-12"', false],
    [' * ', true],
  ])('%s → %s', (header, hit) => {
    expect(ifNoneMatchHits(header, '"snapshot-1"')).toBe(hit);
  });
});

describe('snapshot query and If-None-Match edges', () => {
  // protocol.md §3: only a value that is "not a non-negative integer" is a 400, so a 16-digit
  // safe integer must not be refused for its length.
  it('accepts minVersion=9007199254740991, the largest safe integer version', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot?minVersion=9007199254740991');
    expect(response.status).toBe(200);
  });

  it('accepts minVersion with leading zeros and ignores unknown query parameters', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot?minVersion=007&cacheBust=1&minversion=x');
    expect(response.status).toBe(200);
  });

  it.each([
    ['a quoted star', '"*"', 200],
    ['a star inside a list', '"snapshot-0", *', 304],
    ['two If-None-Match headers', ['"snapshot-0"', '"snapshot-1"'], 304],
  ])('If-None-Match %s → %i', async (_name, value, status) => {
    const server = await servers.start();
    const lines = (Array.isArray(value) ? value : [value]).map((v) => `If-None-Match: ${v}`);
    const raw = parseResponses(await rawExchange(server, snapshotRequest([`Authorization: Bearer ${DEMO.prodServerKey}`, ...lines])));
    expect(raw[0]?.status).toBe(status);
    expect(raw[0]?.headers.etag).toBe('"snapshot-1"');
  });
});
