/** Requests the HTTP parser or the body reader refuses, answered with the error shape. */
import { describe, expect, it, vi } from 'vitest';
import { call, DEMO, errorOf, NOW, sleep, useServers } from '../helpers';
import { openRaw, parseResponses, rawErrorOf, rawExchange, snapshotRequest } from '../raw-http';

const servers = useServers();

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
    const head = `POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\n`;
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
      `POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: 262145\r\n\r\n{`,
    );
    await vi.waitFor(() => expect(parseResponses(raw)).toHaveLength(1));
    expect(parseResponses(raw)[0]?.status).toBe(413);
    expect(rawErrorOf(parseResponses(raw)[0]).code).toBe('payload_too_large');
  });

  // node:http closes a CONNECT request's socket without a byte unless a 'connect' listener is
  // registered, so the server must answer it itself (405) with the error shape.
  it('answers a CONNECT request with an error status and the error shape', async () => {
    const server = await servers.start();
    const raw = parseResponses(await rawExchange(server, 'CONNECT /sdk/v1/snapshot HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    expect(raw[0]?.status).toBeGreaterThanOrEqual(400);
    rawErrorOf(raw[0]);
  });

  // A valid request pipelined before a malformed one: the raw 400 for the malformed one must wait
  // until the pending response is written, or the valid request is answered with the other's 400.
  it('answers a valid request pipelined before a malformed one with its own 200 first', async () => {
    const server = await servers.start();
    const raw = parseResponses(
      await rawExchange(server, `GET /sdk/v1/snapshot HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\n\r\nGARBAGE\r\n\r\n`),
    );
    expect(raw[0]?.status).toBe(200);
  });

  it('accepts a chunked body split into many small chunks', async () => {
    const server = await servers.start();
    const body = JSON.stringify({ sentAt: NOW(), events: [{ type: 'error', message: 'chunked' }] });
    const chunks = body.match(/.{1,3}/g)!.map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
    const head = `POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
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
      `POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"sen\r\n`,
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
      `POST /sdk/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO.prodServerKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sentAt"`,
    );
    await vi.waitFor(() => expect(keysSeen).toHaveBeenCalled());
    socket.destroy();
    await Promise.race([reportedOnce, sleep(500)]);
    expect(reported).toEqual([]);
  });
});
