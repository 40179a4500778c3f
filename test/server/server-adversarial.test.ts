/**
 * Adversarial probes of the reference server: malformed HTTP, odd targets, header variants,
 * WebSocket handshakes the `ws` library rejects, junk on the stream, and close() with work in
 * flight. Each probe once found a bug against protocol.md / reference-server.md; they now guard the fixes.
 */
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { ReferenceServer } from '../../reference-server/index';
import { call, DEMO, errorOf, NOW, sleep, StreamClient, useServers, withTimeout } from './helpers';
import { openRaw, parseResponses, rawErrorOf, rawExchange } from './raw-http';

const servers = useServers();

const WS_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

function upgradeRequest(path: string, headers: Record<string, string> = {}, method = 'GET'): string {
  const all: Record<string, string> = {
    Host: 'x',
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': WS_KEY,
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Protocol': `flagplane.v1, flagplane.key.${DEMO.prodClientKey}`,
    ...headers,
  };
  const lines = Object.entries(all)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

function snapshotRequest(extraHeaders: string[] = [], connection = 'close'): string {
  return ['GET /sdk/v1/snapshot HTTP/1.1', 'Host: x', `Connection: ${connection}`, ...extraHeaders].join('\r\n') + '\r\n\r\n';
}

describe('Authorization header variants', () => {
  it.each([
    ['a lowercase scheme', `bearer ${DEMO.prodServerKey}`],
    ['an uppercase scheme', `BEARER ${DEMO.prodServerKey}`],
    ['several spaces after the scheme', `Bearer    ${DEMO.prodServerKey}`],
  ])('accepts %s', async (_name, authorization) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { key: null, headers: { authorization } });
    expect(response.status).toBe(200);
  });

  it.each([
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['no space after the scheme', `Bearer${DEMO.prodServerKey}`],
    ['two tokens', `Bearer ${DEMO.prodServerKey} ${DEMO.prodServerKey}`],
    ['a comma-joined pair of credentials', `Bearer ${DEMO.prodServerKey}, Bearer ${DEMO.prodServerKey}`],
    ['a key with a trailing character', `Bearer ${DEMO.prodServerKey}x`],
    ['a quoted key', `Bearer "${DEMO.prodServerKey}"`],
  ])('answers 401 with the error shape for %s', async (_name, authorization) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { key: null, headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect((await errorOf(response)).code).toBe('unauthorized');
  });

  it('uses the first of two Authorization headers', async () => {
    const server = await servers.start();
    const goodFirst = parseResponses(
      await rawExchange(server, snapshotRequest([`Authorization: Bearer ${DEMO.prodServerKey}`, 'Authorization: Bearer nope'])),
    );
    expect(goodFirst[0]?.status).toBe(200);
    const badFirst = parseResponses(
      await rawExchange(server, snapshotRequest(['Authorization: Bearer nope', `Authorization: Bearer ${DEMO.prodServerKey}`])),
    );
    expect(badFirst[0]?.status).toBe(401);
    expect(rawErrorOf(badFirst[0]).code).toBe('unauthorized');
  });

  it('serves a key its own environment, and refuses it on a keep-alive connection once revoked', async () => {
    const server = await servers.start();
    const key = await server.createKey('staging', 'server');
    const socket = openRaw(server);
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk.toString()));
    const request = snapshotRequest([`Authorization: Bearer ${key}`], 'keep-alive');
    socket.write(request);
    await vi.waitFor(() => expect(parseResponses(raw)).toHaveLength(1));
    const first = parseResponses(raw)[0]!;
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ environmentId: 'staging' });

    server.revokeKey(key);
    socket.write(request);
    await vi.waitFor(() => expect(parseResponses(raw)).toHaveLength(2));
    const second = parseResponses(raw)[1]!;
    expect(second.status).toBe(401);
    expect(rawErrorOf(second).message).toContain('revoked');
  });
});

describe('request targets and methods', () => {
  it.each([
    ['a double slash', '/sdk//v1/snapshot'],
    ['a leading double slash', '//sdk/v1/snapshot'],
    ['a dot segment', '/sdk/v1/./snapshot'],
    ['an upper-case path', '/SDK/V1/SNAPSHOT'],
    ['a trailing slash on identity', '/sdk/v1/identity/?userId=u'],
  ])('answers 404 not_found with the error shape for %s', async (_name, path) => {
    const server = await servers.start();
    const raw = parseResponses(await rawExchange(server, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\n\r\n`));
    expect(raw[0]?.status).toBe(404);
    expect(rawErrorOf(raw[0]).code).toBe('not_found');
  });

  it('answers 405 with Allow for an unknown method token, and keeps serving', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { method: 'PATCH' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, OPTIONS');
    expect((await errorOf(response)).code).toBe('method_not_allowed');
    expect((await call(server, '/sdk/v1/snapshot')).status).toBe(200);
  });

  it('answers an OPTIONS preflight on an admin parameter route with 405 and no CORS headers', async () => {
    const server = await servers.start();
    const response = await call(server, '/admin/v1/environments/production/snapshot', { method: 'OPTIONS', key: server.adminToken });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('PUT');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('ignores a body sent with GET and answers the next request on the same connection', async () => {
    const server = await servers.start();
    const body = '{"this":"is ignored"}';
    const first = ['GET /sdk/v1/snapshot HTTP/1.1', 'Host: x', `Authorization: Bearer ${DEMO.prodServerKey}`, `Content-Length: ${body.length}`].join('\r\n');
    const raw = await rawExchange(server, `${first}\r\n\r\n${body}${snapshotRequest([`Authorization: Bearer ${DEMO.prodClientKey}`])}`);
    const responses = parseResponses(raw);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(Object.keys(JSON.parse(responses[1]!.body).flags)).not.toContain('server-only');
  });

  // RFC 9112 §3.2.2: "a server MUST accept the absolute-form in requests", and edges/proxies send it.
  it('serves a request whose target is in absolute form', async () => {
    const server = await servers.start();
    const raw = parseResponses(
      await rawExchange(server, `GET ${server.baseUrl}/sdk/v1/snapshot HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\n\r\n`),
    );
    expect(raw[0]?.status).toBe(200);
  });
});

describe('malformed HTTP', () => {
  it('answers oversized headers with 431 and the error shape, and keeps serving', async () => {
    const server = await servers.start();
    const raw = parseResponses(await rawExchange(server, snapshotRequest([`X-Pad: ${'a'.repeat(20_000)}`])));
    expect(raw[0]?.status).toBe(431);
    expect(rawErrorOf(raw[0]).code).toBe('invalid_request');
    // A browser shows an answer without Allow-Origin as a CORS failure, not as its status.
    expect(raw[0]?.headers['access-control-allow-origin']).toBe('*');
    expect((await call(server, '/sdk/v1/snapshot')).status).toBe(200);
  });

  it.each([
    ['a non-numeric Content-Length', 'Content-Length: abc\r\n\r\n'],
    ['two different Content-Lengths', 'Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['Content-Length together with chunked', 'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'],
    ['a chunk size that is not hex', 'Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
  ])('answers %s on the events route with 400 and the error shape', async (_name, rest) => {
    const server = await servers.start();
    const head = `POST /sdk/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\n`;
    const raw = parseResponses(await rawExchange(server, head + rest));
    expect(raw[0]?.status).toBe(400);
    expect(rawErrorOf(raw[0]).code).toBe('invalid_request');
    expect(server.stores.diagnostics.events).toHaveLength(0);
    expect((await call(server, '/sdk/v1/snapshot')).status).toBe(200);
  });

  it('answers a declared Content-Length over the limit with 413 before the body arrives', async () => {
    const server = await servers.start();
    const socket = openRaw(server);
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk.toString()));
    socket.write(
      `POST /sdk/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: 262145\r\n\r\n{`,
    );
    await vi.waitFor(() => expect(parseResponses(raw)).toHaveLength(1));
    expect(parseResponses(raw)[0]?.status).toBe(413);
    expect(rawErrorOf(parseResponses(raw)[0]).code).toBe('payload_too_large');
  });

  // node:http closes a CONNECT request's socket without a byte unless a 'connect' listener is
  // registered, so the server must answer it itself (405) with the error shape.
  it('answers a CONNECT request with an error status and the error shape', async () => {
    const server = await servers.start();
    const raw = parseResponses(await rawExchange(server, 'CONNECT /sdk/v1/snapshot HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(raw[0]?.status).toBeGreaterThanOrEqual(400);
    rawErrorOf(raw[0]);
  });

  // A valid request pipelined before a malformed one: the raw 400 for the malformed one must wait
  // until the pending response is written, or the valid request is answered with the other's 400.
  it('answers a valid request pipelined before a malformed one with its own 200 first', async () => {
    const server = await servers.start();
    const raw = parseResponses(
      await rawExchange(server, `GET /sdk/v1/snapshot HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\n\r\nGARBAGE\r\n\r\n`),
    );
    expect(raw[0]?.status).toBe(200);
  });

  it('accepts a chunked body split into many small chunks', async () => {
    const server = await servers.start();
    const body = JSON.stringify({ sentAt: NOW(), events: [{ type: 'error', message: 'chunked' }] });
    const chunks = body.match(/.{1,3}/g)!.map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
    const head = `POST /sdk/v1/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const raw = parseResponses(await rawExchange(server, `${head}${chunks.join('')}0\r\n\r\n`));
    expect(raw[0]?.status).toBe(202);
    expect(server.stores.diagnostics.events).toMatchObject([{ type: 'error', message: 'chunked' }]);
  });

  it.each([
    ['a UTF-8 byte-order mark', '\uFEFF{"sentAt":"2025-06-01T00:00:00Z","events":[]}'],
    ['trailing garbage', '{"sentAt":"2025-06-01T00:00:00Z","events":[]}x'],
    ['an empty body', ''],
    ['NaN', '{"sentAt":"2025-06-01T00:00:00Z","events":[{"type":"version_skew","previousVersion":NaN,"currentVersion":1}]}'],
  ])('answers events with %s as 400 invalid_json', async (_name, rawBody) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/events', { method: 'POST', rawBody, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('invalid_json');
  });

  it.each([
    ['application/jsonx', 'application/jsonx'],
    ['text/json', 'text/json'],
    ['a JSON suffix type', 'application/vnd.api+json'],
    ['an empty Content-Type', ''],
  ])('answers an events body sent as %s with 415', async (_name, contentType) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/events', {
      method: 'POST',
      rawBody: JSON.stringify({ sentAt: NOW(), events: [] }),
      headers: { 'content-type': contentType },
    });
    expect(response.status).toBe(415);
    expect((await errorOf(response)).code).toBe('unsupported_media_type');
  });

  it('keeps nothing of a body whose client disconnects midway, and keeps serving', async () => {
    const server = await servers.start();
    const keysSeen = vi.spyOn(server.stores.keys, 'get');
    const socket = openRaw(server);
    socket.write(
      `POST /sdk/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"sen\r\n`,
    );
    await vi.waitFor(() => expect(keysSeen).toHaveBeenCalled());
    socket.destroy();
    const response = await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt: NOW(), events: [{ type: 'error', message: 'after' }] } });
    expect(response.status).toBe(202);
    expect(server.stores.diagnostics.events).toMatchObject([{ message: 'after' }]);
  });

  // A client hang-up mid-body is not a server bug: it must not reach onInternalError.
  it('does not report a client that disconnects mid-body as an internal error', async () => {
    const reported: unknown[] = [];
    let onReport: () => void = () => undefined;
    const reportedOnce = new Promise<void>((resolve) => (onReport = resolve));
    const server = await servers.start({
      onInternalError: (error) => {
        reported.push(error);
        onReport();
      },
    });
    const keysSeen = vi.spyOn(server.stores.keys, 'get');
    const socket = openRaw(server);
    socket.write(
      `POST /sdk/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sentAt"`,
    );
    await vi.waitFor(() => expect(keysSeen).toHaveBeenCalled());
    socket.destroy();
    await Promise.race([reportedOnce, sleep(500)]);
    expect(reported).toEqual([]);
  });
});

describe('event batches against the type table', () => {
  // Names inherited from Object.prototype must not find a "rule set" (a function or the prototype)
  // in the type table: protocol.md §4 says unknown types are rejected with 400 invalid_batch
  // naming events[i].type, and nothing is stored in diagnostics.
  for (const type of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    it(`rejects an event of type "${type}" with 400 naming events[0].type`, async () => {
      const server = await servers.start();
      const response = await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt: NOW(), events: [{ type }] } });
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path: 'events[0].type' });
      expect(server.stores.diagnostics.events).toHaveLength(0);
    });
  }

  it('rejects the first bad event of a full batch of 500 by its index, storing nothing', async () => {
    const server = await servers.start();
    const events: unknown[] = Array.from({ length: 500 }, () => ({ type: 'unregistered_flag', key: 'x' }));
    events[499] = { type: 'version_skew', previousVersion: 1, currentVersion: 2 ** 53 };
    const response = await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt: NOW(), events } });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path: 'events[499].currentVersion' });
    expect(server.stores.diagnostics.events).toHaveLength(0);
  });

  it.each([
    ['a 65-character sentAt', `2025-06-01T00:00:00.${'1'.repeat(44)}Z`, 400],
    ['a 64-character sentAt', `2025-06-01T00:00:00.${'1'.repeat(43)}Z`, 202],
    ['a sentAt with an offset', '2025-06-01T00:00:00+00:00', 400],
    ['a sentAt on 29 February of a non-leap year', '2025-02-29T00:00:00Z', 400],
  ])('answers %s with %i', async (_name, sentAt, status) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt, events: [] } });
    expect(response.status).toBe(status);
    if (status === 400) expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path: 'sentAt' });
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

describe('identity query edges', () => {
  it.each([
    ['a 256-character id', 'u'.repeat(256), 'u'.repeat(256)],
    ['an encoded slash, ampersand and emoji', encodeURIComponent('a/b&c😀'), 'a/b&c😀'],
    ['a plus sign as a space', 'user+42', 'user 42'],
  ])('answers %s', async (_name, query, expected) => {
    const server = await servers.start();
    const response = await call(server, `/sdk/v1/identity?userId=${query}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ userId: expected, traits: {} });
  });

  it.each([
    ['userId with another case', '?userid=user-42'],
    ['a bare userId', '?userId'],
    ['an empty and a full userId', '?userId=&userId=user-42'],
  ])('answers %s with 400 naming userId', async (_name, query) => {
    const server = await servers.start();
    const response = await call(server, `/sdk/v1/identity${query}`);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_request', path: 'userId' });
  });
});

describe('admin routes with bad input', () => {
  it('keeps versions moving forward whatever version a published body claims', async () => {
    const server = await servers.start();
    const adminCall = (body: unknown) =>
      call(server, '/admin/v1/environments/production/snapshot', { key: server.adminToken, method: 'PUT', body });
    expect(await (await adminCall({ schemaVersion: 1, flags: {}, version: 0 })).json()).toEqual({ environmentId: 'production', version: 2 });
    expect(await (await adminCall({ schemaVersion: 1, flags: {}, version: 1 })).json()).toEqual({ environmentId: 'production', version: 3 });
    const served = await call(server, '/sdk/v1/snapshot');
    expect(served.headers.get('etag')).toBe('"snapshot-3"');
  });

  it('does not let a published __proto__ member leak into other snapshots', async () => {
    const server = await servers.start();
    const response = await call(server, '/admin/v1/environments/production/snapshot', {
      key: server.adminToken,
      method: 'PUT',
      rawBody: '{"schemaVersion":1,"flags":{"__proto__":{"clientSide":true,"on":true}},"__proto__":{"polluted":true}}',
    });
    expect(response.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const served = await (await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).json();
    expect(served.version).toBe(2);
    expect(served.polluted).toBeUndefined();
  });

  it.each([
    ['an environment id that does not decode', 'PUT', '/admin/v1/environments/%E0%A4%A/snapshot', 404],
    ['a revoke of a malformed key', 'DELETE', '/admin/v1/keys/not-a-key', 404],
    ['an empty userId segment', 'PUT', '/admin/v1/environments/production/traits/', 404],
  ])('answers %s with the error shape', async (_name, method, path, status) => {
    const server = await servers.start();
    const response = await call(server, path, { key: server.adminToken, method, body: {} });
    expect(response.status).toBe(status);
    expect((await errorOf(response)).code).toBe('not_found');
  });

  it('checks the admin token before reading an oversized body', async () => {
    const server = await servers.start();
    const response = await call(server, '/admin/v1/environments/production/snapshot', {
      key: 'wrong-token-123',
      method: 'PUT',
      rawBody: 'x'.repeat(6 * 1024 * 1024),
    });
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe('unauthorized');
  });

  // protocol.md §7: resync answers how many subscribers were notified; a stream that is closing
  // (here: its key was just revoked) is sent nothing, so it must not be counted.
  it('does not count a stream closed by a revocation as notified', async () => {
    const server = await servers.start();
    const key = await server.createKey('production', 'client');
    const client = await servers.subscribe(server, key, 'production', 1);
    server.revokeKey(key);
    const response = await call(server, '/admin/v1/environments/production/resync', { key: server.adminToken, method: 'POST' });
    const { code } = await withTimeout(client.closed, 5000, '4403');
    expect(code).toBe(4403);
    expect(client.ofType('snapshot.resync')).toEqual([]);
    expect(await response.json()).toEqual({ environmentId: 'production', notified: 0 });
  });
});

describe('WebSocket handshakes that ws refuses', () => {
  // Left to itself, ws's abortHandshake answers these with `Content-Type: text/html` and a
  // plain-text body; protocol.md §5's error shape must be used instead. Each is a refusal of an
  // upgrade to /sdk/v1/stream.
  const refusals: Array<[string, string]> = [
    ['a malformed Sec-WebSocket-Key', upgradeRequest('/sdk/v1/stream', { 'Sec-WebSocket-Key': 'short' })],
    ['a missing Sec-WebSocket-Key', upgradeRequest('/sdk/v1/stream', { 'Sec-WebSocket-Key': '' })],
    ['an unsupported Sec-WebSocket-Version', upgradeRequest('/sdk/v1/stream', { 'Sec-WebSocket-Version': '12' })],
    ['a duplicated subprotocol', upgradeRequest('/sdk/v1/stream', { 'Sec-WebSocket-Protocol': 'flagplane.v1, flagplane.v1' })],
    ['a subprotocol list with an empty entry', upgradeRequest('/sdk/v1/stream', { 'Sec-WebSocket-Protocol': 'flagplane.v1,,x' })],
    ['an Upgrade other than websocket', upgradeRequest('/sdk/v1/stream', { Upgrade: 'h2c' })],
    ['a POST upgrade', upgradeRequest('/sdk/v1/stream', {}, 'POST')],
  ];
  for (const [name, request] of refusals) {
    it(`refuses ${name} with the JSON error shape`, async () => {
      const server = await servers.start();
      const raw = parseResponses(await rawExchange(server, request));
      expect(raw[0]?.status).toBeGreaterThanOrEqual(400);
      rawErrorOf(raw[0]);
      expect(raw[0]?.headers['access-control-allow-origin']).toBe('*');
    });
  }

  it('still refuses those handshakes with a 4xx and keeps serving streams', async () => {
    const server = await servers.start();
    for (const [, request] of refusals) {
      const raw = parseResponses(await rawExchange(server, request));
      expect(raw[0]?.status).toBeGreaterThanOrEqual(400);
      expect(raw[0]?.status).toBeLessThan(500);
    }
    const client = servers.connect(server);
    expect((await client.next('connected')).environmentId).toBe('production');
  });

  it('authenticates a key offered with extra whitespace and a lowercase bearer header', async () => {
    const server = await servers.start();
    const client = servers.connect(server, { protocols: ['flagplane.v1'], headers: { authorization: `bearer   ${DEMO.stagingClientKey}` } });
    expect(await client.next('connected')).toMatchObject({ environmentId: 'staging' });
  });

  it('prefers the key subprotocol over the header, and closes 4401 when that key is bad', async () => {
    const server = await servers.start();
    const client = servers.connect(server, {
      protocols: ['flagplane.v1', 'flagplane.key.svc_sdk_client_unknown_0000'],
      headers: { authorization: `Bearer ${DEMO.prodClientKey}` },
    });
    expect((await withTimeout(client.closed, 5000, 'close')).code).toBe(4401);
  });
});

describe('junk on the stream', () => {
  // protocol.md §6.2: "a frame that is not JSON … closes the connection with 4400 and a reason
  // naming the fault". A text frame that is not valid UTF-8 is not JSON; left to itself ws closes
  // it 1007, which a client treats as a silent reconnect instead of a reported protocol error.
  it('closes a text frame that is not UTF-8 with 4400', async () => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await withTimeout(client.closed, 5000, 'close')).code).toBe(4400);
  });

  it('closes a frame over 64 KiB with 1009 and keeps serving other streams', async () => {
    const server = await servers.start();
    const big = servers.connect(server);
    const other = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    await big.next('connected');
    big.send({ type: 'ping', ts: 1, pad: 'x'.repeat(64 * 1024) });
    expect((await withTimeout(big.closed, 5000, 'close')).code).toBe(1009);
    server.publish('production', { schemaVersion: 1, flags: {} });
    expect(await other.next('snapshot.updated')).toEqual({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
  });

  it.each([
    ['a subscribe with a negative version', { type: 'subscribe', environmentId: 'production', lastKnownVersion: -1 }, 'lastKnownVersion'],
    ['a subscribe with a fractional version', { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1.5 }, 'lastKnownVersion'],
    ['a pong with a string ts', { type: 'pong', ts: '1' }, 'ts'],
    ['a JSON null', null, 'object'],
    ['a JSON string', 'subscribe', 'JSON'],
  ])('closes with 4400 on %s', async (_name, frame, reasonPart) => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.send(frame === null ? 'null' : frame);
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed.code).toBe(4400);
    expect(closed.reason).toContain(reasonPart);
  });

  it('sends a 4400 close reason that fits in a control frame for a very long unknown type', async () => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.send({ type: '😀'.repeat(500) });
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed.code).toBe(4400);
    expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
  });

  it('notifies every one of many subscribers, then closes all of them with 1001', async () => {
    const server = await servers.start();
    const clients = await Promise.all(Array.from({ length: 40 }, () => servers.subscribe(server, DEMO.prodClientKey, 'production', 1)));
    expect(await server.resync('production')).toEqual({ notified: 40 });
    server.publish('production', { schemaVersion: 1, flags: {} });
    for (const client of clients) {
      expect(await client.next('snapshot.resync')).toMatchObject({ reason: 'operator' });
      expect(await client.next('snapshot.updated')).toMatchObject({ version: 2 });
    }
    await server.close();
    const closes = await Promise.all(clients.map((client) => withTimeout(client.closed, 5000, 'close')));
    expect(new Set(closes.map((c) => c.code))).toEqual(new Set([1001]));
  });
});

describe('close() with work in flight', () => {
  function freePortIsFree(port: number): Promise<boolean> {
    return new Promise((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
  }

  it('settles and frees the port while a stream client never reads nor answers the close frame', async () => {
    const server = await servers.start({ heartbeatMs: 50 });
    const socket = openRaw(server);
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk.toString('latin1')));
    socket.write(upgradeRequest('/sdk/v1/stream'));
    await vi.waitFor(() => expect(raw).toContain('"connected"'));
    socket.pause();
    await withTimeout(server.close(), 10_000, 'close()');
    expect(await freePortIsFree(server.port)).toBe(true);
  });

  it('settles while a stream is still authenticating and while an upgrade arrives during close', async () => {
    const server = await servers.start({ connectedDelayMs: 60_000 });
    const pending = servers.connect(server);
    await pending.opened;
    const closing = server.close();
    const late = new StreamClient(new WebSocket(`${server.wsUrl}/sdk/v1/stream`, ['flagplane.v1', `flagplane.key.${DEMO.prodClientKey}`]));
    await withTimeout(closing, 5000, 'close()');
    expect((await withTimeout(pending.closed, 5000, 'close')).code).toBe(1001);
    const lateClose = await withTimeout(late.closed, 5000, 'late close');
    expect(lateClose.code).not.toBe(1000);
    expect(late.messages).toEqual([]);
  });

  // reference-server.md: close() releases the port after a short grace. A client that sent
  // headers and part of a body and then stalls must not hold close() open until node's
  // requestTimeout (300 s).
  it('settles while a client stalls in the middle of a request body', async () => {
    const server = await servers.start();
    const keysSeen = vi.spyOn(server.stores.keys, 'get');
    const socket = openRaw(server);
    socket.write(
      `POST /sdk/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sentAt"`,
    );
    await vi.waitFor(() => expect(keysSeen).toHaveBeenCalled());
    await withTimeout(server.close(), 4000, 'close() with a stalled upload');
  });

  it('settles while a client stalls in the middle of its request headers', async () => {
    const server = await servers.start();
    const socket = openRaw(server);
    socket.write('GET /sdk/v1/snapshot HTTP/1.1\r\nHost: x\r\n');
    await sleep(50);
    await withTimeout(server.close(), 4000, 'close() with stalled headers');
  });

  // A TCP connection that never sends a request (a browser preconnect, or a connect racing
  // close()) is not closed by node's server.close() alone; close() must still settle.
  it('settles with an idle connection that never sent a byte', async () => {
    const server = await servers.start();
    const socket = openRaw(server);
    await new Promise((resolve) => socket.once('connect', resolve));
    await sleep(50);
    await withTimeout(server.close(), 4000, 'close() with an idle socket');
  });
});
