// Issue 17's three deviations from protocol.md, and the request timeouts that bound slow clients.
import { describe, expect, it } from 'vitest';
import { DEMO, sleep, useServers } from '../helpers';
import { openRaw, parseResponses, rawErrorOf, rawExchange, received } from '../raw-http';

const servers = useServers();

const eventsRequest = (body: Buffer, host = 'Host: localhost\r\n') =>
  Buffer.concat([
    Buffer.from(
      `POST /sdk/v1/events HTTP/1.1\r\n${host}Authorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    ),
    body,
  ]);

describe('protocol.md on the wire', () => {
  it('refuses a body that is not UTF-8 with a 400, and stores nothing', async () => {
    const server = await servers.start();
    const batch = Buffer.from(`{"sentAt":"2026-11-25T00:00:00.000Z","events":[{"type":"unregistered_flag","key":"k-\u0000"}]}`);
    // "k-" then the lone byte 0xFF where a character should be.
    batch[batch.indexOf(0)] = 0xff;
    const [response] = parseResponses(await rawExchange(server, eventsRequest(batch)));
    expect(response?.status).toBe(400);
    expect(rawErrorOf(response)).toMatchObject({ code: 'invalid_json', message: 'the body is not valid UTF-8' });
    expect(response?.headers['access-control-allow-origin']).toBe('*');
    expect(server.stores.diagnostics.events).toEqual([]);
  });

  it('answers an HTTP/1.1 request without Host with the JSON error shape and CORS', async () => {
    const server = await servers.start();
    const raw = await rawExchange(server, `GET /sdk/v1/snapshot HTTP/1.1\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nConnection: close\r\n\r\n`);
    const [response] = parseResponses(raw);
    expect(response?.status).toBe(400);
    expect(rawErrorOf(response)).toMatchObject({ code: 'invalid_request', path: 'Host' });
    expect(response?.headers['access-control-allow-origin']).toBe('*');
    // HTTP/1.0 has no Host requirement.
    const [old] = parseResponses(await rawExchange(server, `GET /sdk/v1/snapshot HTTP/1.0\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\n\r\n`));
    expect(old?.status).toBe(200);
  });

  it('answers a body that stalls with a 408 at requestTimeoutMs, not minutes later', async () => {
    const server = await servers.start({ limits: { requestTimeoutMs: 400, headersTimeoutMs: 300 } });
    const socket = openRaw(server);
    const closed = received(socket);
    const started = Date.now();
    socket.write(`POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sentAt"`);
    const raw = await closed;
    const elapsed = Date.now() - started;
    const [response] = parseResponses(raw);
    expect(response?.status).toBe(408);
    expect(rawErrorOf(response).code).toBe('invalid_request');
    expect(response?.headers['access-control-allow-origin']).toBe('*');
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(3000);
  });

  it('closes a connection whose headers stall at headersTimeoutMs', async () => {
    const server = await servers.start({ limits: { requestTimeoutMs: 5000, headersTimeoutMs: 300 } });
    const socket = openRaw(server);
    const closed = received(socket);
    const started = Date.now();
    socket.write('GET /sdk/v1/snapshot HTTP/1.1\r\nHost: localhost\r\n');
    const raw = await closed;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(parseResponses(raw)[0]?.status).toBe(408);
  });

  it('a request that arrives in time is served as before', async () => {
    const server = await servers.start({ limits: { requestTimeoutMs: 2000, headersTimeoutMs: 1000 } });
    const socket = openRaw(server);
    const closed = received(socket);
    socket.write(`GET /sdk/v1/snapshot HTTP/1.1\r\nHost: localhost\r\n`);
    await sleep(200);
    socket.write(`Authorization: Bearer ${DEMO.prodServerKey}\r\nConnection: close\r\n\r\n`);
    const raw = await closed;
    expect(parseResponses(raw)[0]?.status).toBe(200);
  });
});
