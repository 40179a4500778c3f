import { request } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startReferenceServer } from '../../reference-server/index';
import { call, DEMO, NOW, sleep, StreamClient, useServers, withTimeout } from './helpers';
import type { ShutdownReport } from '../../reference-server/index';
import { openRaw, parseResponses, rawErrorOf, received, upgradeRequest } from './raw-http';

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
      `POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sentAt"`,
    );
    await vi.waitFor(() => expect(keysSeen).toHaveBeenCalled());
    await withTimeout(server.close(), 4000, 'close() with a stalled upload');
  });

  it('settles while a client stalls in the middle of its request headers', async () => {
    const server = await servers.start();
    const socket = openRaw(server);
    socket.write('GET /sdk/v1/snapshot HTTP/1.1\r\nHost: localhost\r\n');
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

describe('close(): what it reports, and what it refuses while closing', () => {
  const eventsRequest = (body: string) =>
    `POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;

  it('calls onClose once with the streams it closed and the requests it finished and cut', async () => {
    const reports: ShutdownReport[] = [];
    const server = await servers.start({ onClose: (report) => reports.push(report) });
    const streams = [servers.connect(server), servers.connect(server)];
    await Promise.all(streams.map((stream) => stream.next('connected')));
    const body = JSON.stringify({ sentAt: NOW(), events: [{ type: 'error', message: 'in flight' }] });
    const finishing = openRaw(server);
    const finishingAnswer = received(finishing);
    finishing.write(eventsRequest(body) + body.slice(0, 5));
    // Stalls: cut when the 2 s grace runs out.
    const stalled = openRaw(server);
    stalled.write(eventsRequest(body) + body.slice(0, 5));
    await vi.waitFor(() => expect(server.stores.keys.list().length).toBeGreaterThan(0));
    await sleep(100);

    const closing = server.close();
    finishing.write(body.slice(5));
    const [answer] = parseResponses(await withTimeout(finishingAnswer, 2000, 'the answer to the request in flight'));
    expect(answer?.status).toBe(202);
    expect(answer?.headers.connection).toBe('close');
    await withTimeout(closing, 5000, 'close()');
    await server.close();
    expect(reports).toHaveLength(1);
    expect(reports[0], JSON.stringify(reports[0])).toEqual({ streams: 2, requests: { finished: 1, cut: 1 }, ms: expect.any(Number) });
    expect(reports[0]!.ms).toBeGreaterThanOrEqual(2000);
    for (const stream of streams) expect((await stream.closed).code).toBe(1001);
  });

  it('answers an upgrade sent during close() on a connection opened before it with 503 unavailable, not a stream', async () => {
    const server = await servers.start();
    // A client whose TCP connect raced close(): its connection is open, its upgrade comes after.
    const socket = openRaw(server);
    await new Promise((resolve) => socket.once('connect', resolve));
    const all = received(socket);
    // The request begun before close() (Node 22 and later close a connection with none at once), ended after it.
    const request = upgradeRequest('/sdk/v1/stream');
    socket.write(request.slice(0, -2));
    await sleep(50);
    const closing = server.close();
    socket.write(request.slice(-2));
    const responses = parseResponses(await withTimeout(all, 3000, 'the connection closed'));
    await withTimeout(closing, 5000, 'close()');
    expect(responses.map((response) => response.status)).toEqual([503]);
    expect(rawErrorOf(responses[0]).code).toBe('unavailable');
    expect(responses[0]?.headers['retry-after']).toBe('1');
    expect(server.stores.evictions.streamsRefused).toBe(0);
  });
});
