import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { ReferenceServer } from '../../../reference-server/index';
import { admin, call, DEMO, errorOf, NOW, useServers } from '../helpers';

const servers = useServers();

const sdkRequests: Array<[string, string, unknown?]> = [
  ['GET', '/sdk/v1/snapshot'],
  ['POST', '/sdk/v1/events', { sentAt: '2025-06-01T00:00:00Z', events: [] }],
  ['GET', '/sdk/v1/identity?userId=user-42'],
];

/** Sends raw bytes and returns the raw response. */
function rawExchange(server: ReferenceServer, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

describe('401 for bad keys on every SDK route', () => {
  const badKeys: Array<[string, (server: ReferenceServer) => string | null | Promise<string>]> = [
    ['no Authorization header', () => null],
    ['a malformed key', () => 'not-a-key'],
    ['an unknown well-formed key', () => 'svc_sdk_client_unknown_0000'],
    ['the admin token', (server) => server.adminToken],
    [
      'a revoked key',
      async (server) => {
        const key = await server.createKey('production', 'client');
        await server.revokeKey(key);
        return key;
      },
    ],
  ];
  for (const [method, path, body] of sdkRequests) {
    it.each(badKeys)(`${method} ${path} with %s`, async (_name, keyOf) => {
      const server = await servers.start();
      const response = await call(server, path, { method, key: await keyOf(server), body });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect((await errorOf(response)).code).toBe('unauthorized');
      expect(server.stores.diagnostics.events).toHaveLength(0);
    });
  }

  it('rejects another auth scheme', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/snapshot', { key: null, headers: { authorization: `Basic ${DEMO.prodServerKey}` } });
    expect(response.status).toBe(401);
  });

  it('checks the key before the body: a bad key with a bad body is 401', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/events', { method: 'POST', key: 'nope', rawBody: '{', headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(401);
  });
});

describe('404, 405, 426 and malformed requests', () => {
  it.each([['/'], ['/sdk/v1/snapshots'], ['/sdk/v1/snapshot/'], ['/sdk/v2/snapshot'], ['/admin/v1/nope'], ['/favicon.ico']])(
    'answers 404 not_found for %s',
    async (path) => {
      const server = await servers.start();
      // The admin token opens /admin/ paths; without it they are all a 401 (below).
      const response = await call(server, path, path.startsWith('/admin/') ? { key: server.adminToken } : {});
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('not_found');
    },
  );

  it.each([
    ['DELETE', '/sdk/v1/snapshot', 'GET, OPTIONS'],
    ['POST', '/sdk/v1/identity', 'GET, OPTIONS'],
    ['GET', '/sdk/v1/events', 'POST, OPTIONS'],
    ['HEAD', '/sdk/v1/snapshot', 'GET, OPTIONS'],
    ['POST', '/admin/v1/analytics', 'GET'],
    ['GET', '/admin/v1/environments/production/snapshot', 'PUT'],
  ])('answers 405 with Allow for %s %s', async (method, path, allow) => {
    const server = await servers.start();
    const response = await call(server, path, { method, ...(path.startsWith('/admin/') && { key: server.adminToken }) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    if (method !== 'HEAD') expect((await errorOf(response)).code).toBe('method_not_allowed');
  });

  it.each([
    ['GET', '/admin/v1/nope'],
    ['POST', '/admin/v1/analytics'],
    ['OPTIONS', '/admin/v1/environments/production/snapshot'],
    ['PATCH', '/admin/v1/environments/nowhere/flags/x'],
  ])('answers %s %s without the admin token with 401, before looking for a route', async (method, path) => {
    const server = await servers.start();
    const response = await call(server, path, { method, key: null });
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe('unauthorized');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers 426 to a plain GET of the stream route', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/stream');
    expect(response.status).toBe(426);
    expect(response.headers.get('upgrade')).toBe('websocket');
    expect((await errorOf(response)).code).toBe('upgrade_required');
  });

  it('answers a WebSocket upgrade on another path with a 404 error body', async () => {
    const server = await servers.start();
    const raw = await rawExchange(
      server,
      'GET /sdk/v1/snapshot HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    expect(raw).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).error.code).toBe('not_found');
  });

  it('answers a malformed HTTP request with a 400 error body and keeps serving', async () => {
    const server = await servers.start();
    const raw = await rawExchange(server, 'GARBAGE\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).error.code).toBe('invalid_request');
    expect((await call(server, '/sdk/v1/snapshot')).status).toBe(200);
  });
});

describe('500 for handler bugs', () => {
  it('answers 500 internal, reports the error, and keeps serving', async () => {
    const reported: unknown[] = [];
    const server = await servers.start({ onInternalError: (error) => reported.push(error) });
    const spy = vi.spyOn(server.stores.traits, 'get').mockImplementation(() => {
      throw new Error('disk on fire');
    });
    const response = await call(server, '/sdk/v1/identity?userId=user-42');
    expect(response.status).toBe(500);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const error = await errorOf(response);
    expect(error.code).toBe('internal');
    expect(error.message).not.toContain('disk on fire');
    expect(reported).toHaveLength(1);
    expect((reported[0] as Error).message).toBe('disk on fire');

    spy.mockRestore();
    expect((await call(server, '/sdk/v1/identity?userId=user-42')).status).toBe(200);
  });

  it('survives a throwing error reporter and an async failure in a store', async () => {
    const server = await servers.start({
      onInternalError: () => {
        throw new Error('reporter broken');
      },
    });
    vi.spyOn(server.stores.identifyQueue, 'append').mockImplementation(() => {
      throw new Error('database down');
    });
    const response = await call(server, '/sdk/v1/events', {
      method: 'POST',
      body: { sentAt: NOW(), events: [{ type: 'identify', userId: 'u', traits: {} }] },
    });
    expect(response.status).toBe(500);
    expect((await errorOf(response)).code).toBe('internal');
    expect((await admin(server, 'GET', '/analytics')).status).toBe(200);
  });
});

describe('a response body that cannot be serialised', () => {
  // router.ts serialises the body in writeResult, outside the try that turns a throw into 500, so
  // the RangeError/TypeError rejects respond() and its catch destroys the socket: the client gets
  // no status and no body at all. protocol.md §5: "Every non-2xx, non-304 response from every
  // route has this body" and "500 | internal | a bug; the process stays up". The stores are
  // writable by tests (EventLog.append), which is how this value gets in here.
  it('is answered with 500 internal and the error shape, not a dropped connection', async () => {
    const internal = vi.fn();
    const server = await servers.start({ onInternalError: internal });
    server.stores.diagnostics.append({ type: 'error', environmentId: 'production', receivedAt: NOW(), n: 1n });
    const response = await admin(server, 'GET', '/diagnostics').catch((error: unknown) => error as Error);
    expect(internal).toHaveBeenCalledTimes(1);
    expect(response).toBeInstanceOf(Response);
    expect((response as Response).status).toBe(500);
    expect((await errorOf(response as Response)).code).toBe('internal');
  });
});
