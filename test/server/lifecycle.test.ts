import { request } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../reference-server/index';
import { call, DEMO, NOW, useServers, withTimeout } from './helpers';

const servers = useServers();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('startReferenceServer', () => {
  it('listens on 127.0.0.1 and a free port by default, and exposes its URLs', async () => {
    const server = await servers.start();
    expect(server.port).toBeGreaterThan(0);
    expect(server.baseUrl).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.wsUrl).toBe(`ws://127.0.0.1:${server.port}`);
  });

  it('rejects when the port is taken, and rejects invalid options', async () => {
    const server = await servers.start();
    await expect(startReferenceServer({ port: server.port })).rejects.toThrow(/EADDRINUSE/);
    await expect(startReferenceServer({ heartbeatMs: 0 })).rejects.toThrow(RangeError);
    await expect(startReferenceServer({ config: { environments: [] } })).rejects.toThrow(/environments/);
  });
});

describe('close()', () => {
  it('closes streams with 1001 going away', async () => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    await server.close();
    expect(await withTimeout(client.closed, 1000, 'close')).toEqual({ code: 1001, reason: 'going away' });
  });

  it('lets an in-flight request finish before releasing the port', async () => {
    const server = await servers.start();
    const body = JSON.stringify({ sentAt: NOW(), events: [{ type: 'error', message: 'late' }] });
    const req = request(`${server.baseUrl}/sdk/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO.prodClientKey}`, 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    const response = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    req.end(body.slice(10));
    expect(await response).toBe(202);
    // Well under the 5 s keep-alive timeout: the finished request's socket must not hold the port.
    await withTimeout(closing, 2500, 'close() after the last response');
    expect(server.stores.diagnostics.events).toHaveLength(1);
  });

  it('releases the port so a new server can start on it at once, even after keep-alive requests', async () => {
    const port = await freePort();
    const first = await servers.start({ port });
    expect((await call(first, '/sdk/v1/snapshot')).status).toBe(200);
    const client = servers.connect(first);
    await client.next('connected');
    await withTimeout(first.close(), 5000, 'close()');

    const second = await servers.start({ port });
    expect(second.port).toBe(port);
    expect((await call(second, '/sdk/v1/snapshot')).status).toBe(200);
    const reconnected = servers.connect(second);
    expect((await reconnected.next('connected')).type).toBe('connected');
  });

  it('clears every timer it started', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const server = await startReferenceServer({ heartbeatMs: 30, transportPingMs: 30, connectedDelayMs: 1000 });
    const client = servers.connect(server);
    await client.opened;
    expect(timers()).toBeGreaterThan(before);
    await server.close();
    await client.closed;
    expect(timers()).toBe(before);
  });

  it('is idempotent, and the port refuses connections afterwards', async () => {
    const server = await servers.start();
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
    await expect(fetch(`${server.baseUrl}/sdk/v1/snapshot`)).rejects.toThrow();
  });
});
