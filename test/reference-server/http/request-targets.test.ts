/** Request targets and methods the router must take or refuse (RFC 9112 §3.2). */
import { describe, expect, it } from 'vitest';
import { call, DEMO, errorOf, useServers } from '../helpers';
import { parseResponses, rawErrorOf, rawExchange, snapshotRequest } from '../raw-http';

const servers = useServers();

describe('request targets and methods', () => {
  it.each([
    ['a double slash', '/sdk//v1/snapshot'],
    ['a leading double slash', '//sdk/v1/snapshot'],
    ['a dot segment', '/sdk/v1/./snapshot'],
    ['an upper-case path', '/SDK/V1/SNAPSHOT'],
    ['a trailing slash on identity', '/sdk/v1/identity/?userId=u'],
  ])('answers 404 not_found with the error shape for %s', async (_name, path) => {
    const server = await servers.start();
    const raw = parseResponses(await rawExchange(server, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\n\r\n`));
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
    const first = ['GET /sdk/v1/snapshot HTTP/1.1', 'Host: localhost', `Authorization: Bearer ${DEMO.prodServerKey}`, `Content-Length: ${body.length}`].join('\r\n');
    const raw = await rawExchange(server, `${first}\r\n\r\n${body}${snapshotRequest([`Authorization: Bearer ${DEMO.prodClientKey}`])}`);
    const responses = parseResponses(raw);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(Object.keys(JSON.parse(responses[1]!.body).flags)).not.toContain('server-only');
  });

  // RFC 9112 §3.2.2: "a server MUST accept the absolute-form in requests", and edges/proxies send it.
  it('serves a request whose target is in absolute form', async () => {
    const server = await servers.start();
    const raw = parseResponses(
      await rawExchange(server, `GET ${server.baseUrl}/sdk/v1/snapshot HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\n\r\n`),
    );
    expect(raw[0]?.status).toBe(200);
  });
});
