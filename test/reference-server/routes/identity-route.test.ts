import { describe, expect, it } from 'vitest';
import { admin, call, DEMO, errorOf, NOW, useServers } from '../helpers';

const servers = useServers();

describe('GET /sdk/v1/identity', () => {
  it('answers the trait overlay of a known user with no-store', async () => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/identity?userId=user-42', { key: DEMO.prodClientKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      userId: 'user-42',
      traits: { plan: 'enterprise', country: 'DE', email: 'dana@example.com', betaOptIn: true },
    });
  });

  it('answers empty traits for an unknown user, and for a user of another environment', async () => {
    const server = await servers.start();
    const unknown = await call(server, '/sdk/v1/identity?userId=nobody');
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    expect(await unknown.json()).toEqual({ userId: 'nobody', traits: {} });
    const otherEnvironment = await call(server, '/sdk/v1/identity?userId=user-42', { key: DEMO.stagingClientKey });
    expect(await otherEnvironment.json()).toEqual({ userId: 'user-42', traits: {} });
  });

  it('decodes the userId and reflects traits set programmatically and through the admin API', async () => {
    const server = await servers.start();
    server.setTraits('production', 'ana@example.com', { plan: 'team' });
    const first = await call(server, `/sdk/v1/identity?userId=${encodeURIComponent('ana@example.com')}`);
    expect(await first.json()).toEqual({ userId: 'ana@example.com', traits: { plan: 'team' } });

    expect((await admin(server, 'PUT', '/environments/production/traits/ana%40example.com', { plan: 'pro', seats: 3 })).status).toBe(200);
    const second = await call(server, '/sdk/v1/identity?userId=ana%40example.com');
    expect(await second.json()).toEqual({ userId: 'ana@example.com', traits: { plan: 'pro', seats: 3 } });
  });

  it('does not turn identify events into overlay traits', async () => {
    const server = await servers.start();
    await call(server, '/sdk/v1/events', {
      method: 'POST',
      body: { sentAt: NOW(), events: [{ type: 'identify', userId: 'new-user', traits: { plan: 'pro' } }] },
    });
    expect(await (await call(server, '/sdk/v1/identity?userId=new-user')).json()).toEqual({ userId: 'new-user', traits: {} });
  });

  it.each([[''], ['?userId='], ['?userId=a&userId=b'], [`?userId=${'u'.repeat(257)}`]])(
    'rejects %s with 400 naming userId',
    async (query) => {
      const server = await servers.start();
      const response = await call(server, `/sdk/v1/identity${query}`);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'invalid_request', path: 'userId' });
    },
  );
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
