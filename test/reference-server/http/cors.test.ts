import { describe, expect, it } from 'vitest';
import { admin, call, DEMO, useServers } from '../helpers';

const servers = useServers();

describe('CORS on /sdk/v1/', () => {
  it.each([
    ['a 200 snapshot', '/sdk/v1/snapshot', DEMO.prodClientKey],
    ['a 401', '/sdk/v1/snapshot', 'svc_sdk_client_unknown_0000'],
    ['a 400 identity', '/sdk/v1/identity', DEMO.prodClientKey],
    ['a 404 under the prefix', '/sdk/v1/nope', DEMO.prodClientKey],
  ])('adds Allow-Origin * and exposes ETag on %s', async (_name, path, key) => {
    const server = await servers.start();
    const response = await call(server, path, { key, headers: { origin: 'https://app.example.com' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toBe('ETag');
  });

  it.each([['/sdk/v1/snapshot'], ['/sdk/v1/events'], ['/sdk/v1/identity'], ['/sdk/v1/stream']])(
    'answers the preflight of %s with 204 and no authentication',
    async (path) => {
      const server = await servers.start();
      const response = await call(server, path, {
        method: 'OPTIONS',
        key: null,
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
      expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, If-None-Match, Flagplane-Min-Version');
      expect(response.headers.get('access-control-max-age')).toBe('86400');
      expect(await response.text()).toBe('');
    },
  );

  it('sends no CORS headers on the admin API, where OPTIONS is not allowed', async () => {
    const server = await servers.start();
    const response = await admin(server, 'GET', '/analytics');
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await call(server, '/admin/v1/analytics', { method: 'OPTIONS', key: server.adminToken });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
