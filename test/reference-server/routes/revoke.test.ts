import { describe, expect, it } from 'vitest';
import { admin, call, DEMO, useServers, withTimeout } from '../helpers';

const servers = useServers();

describe('revoking a key', () => {
  it('closes that key’s streams with 4403 within a second, and only those', async () => {
    const server = await servers.start();
    const key = await server.createKey('production', 'client');
    const first = await servers.subscribe(server, key, 'production', 1);
    const second = servers.connect(server, { key });
    await second.next('connected');
    const other = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);

    const started = Date.now();
    expect((await admin(server, 'DELETE', `/keys/${key}`)).status).toBe(204);
    for (const client of [first, second]) {
      const closed = await withTimeout(client.closed, 1000, '4403');
      expect(closed.code).toBe(4403);
      expect(closed.reason).toContain('revoked');
    }
    expect(Date.now() - started).toBeLessThan(1000);

    other.send({ type: 'ping', ts: 1 });
    expect(await other.next('pong')).toEqual({ type: 'pong', ts: 1 });
    expect((await call(server, '/sdk/v1/snapshot', { key })).status).toBe(401);
  });

  it('closes a stream authenticated by header through revokeKey()', async () => {
    const server = await servers.start();
    const key = await server.createKey('staging', 'server');
    const client = servers.connect(server, { protocols: ['flagplane.v1'], headers: { authorization: `Bearer ${key}` } });
    await client.next('connected');
    server.revokeKey(key);
    expect((await withTimeout(client.closed, 1000, '4403')).code).toBe(4403);
  });

  it('closes with 4403 a stream still authenticating', async () => {
    const server = await servers.start({ connectedDelayMs: 2000 });
    const key = await server.createKey('production', 'client');
    const client = servers.connect(server, { key });
    await client.opened;
    server.revokeKey(key);
    expect((await withTimeout(client.closed, 1000, '4403')).code).toBe(4403);
    expect(client.ofType('connected')).toHaveLength(0);
  });
});
