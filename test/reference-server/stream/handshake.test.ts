import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CLOSE_CODES } from '../../../reference-server/index';
import { DEMO, sleep, useServers, withTimeout } from '../helpers';
import { parseResponses, rawErrorOf, rawExchange, upgradeRequest } from '../raw-http';

const servers = useServers();

describe('stream handshake', () => {
  it('authenticates with a flagplane.key subprotocol, selects only flagplane.v1, and sends connected', async () => {
    const server = await servers.start({ heartbeatMs: 12_345 });
    const client = servers.connect(server, { key: DEMO.prodClientKey });
    let selected: string | undefined;
    client.ws.once('upgrade', (response) => {
      selected = response.headers['sec-websocket-protocol'] as string | undefined;
    });
    await client.opened;
    expect(selected).toBe('flagplane.v1');
    expect(client.ws.protocol).toBe('flagplane.v1');
    expect(await client.next()).toEqual({ type: 'connected', protocol: 1, environmentId: 'production', version: 1, heartbeatMs: 12_345 });
  });

  it('authenticates with Authorization: Bearer when no key subprotocol is offered', async () => {
    const server = await servers.start();
    const client = servers.connect(server, {
      protocols: ['flagplane.v1'],
      headers: { authorization: `Bearer ${DEMO.stagingServerKey}` },
    });
    expect(await client.next('connected')).toMatchObject({ environmentId: 'staging', version: 1 });
  });

  it('announces the current version in connected', async () => {
    const server = await servers.start();
    server.publish('production', { schemaVersion: 1, flags: {} });
    server.publish('production', { schemaVersion: 1, flags: {} });
    const client = servers.connect(server);
    expect((await client.next('connected')).version).toBe(3);
  });

  it.each([
    ['a malformed key', 'not-a-key'],
    ['an unknown key', 'svc_sdk_client_unknown_0000'],
  ])('completes the upgrade for %s, then closes with 4401', async (_name, key) => {
    const server = await servers.start();
    const client = servers.connect(server, { key });
    await client.opened;
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed.code).toBe(CLOSE_CODES.badKey);
    expect(closed.reason).not.toBe('');
    expect(client.ofType('connected')).toHaveLength(0);
  });

  it('closes with 4401 when no key is given at all, and for a revoked key', async () => {
    const server = await servers.start();
    const anonymous = servers.connect(server, { protocols: ['flagplane.v1'] });
    expect((await withTimeout(anonymous.closed, 5000, 'close')).code).toBe(4401);
    const key = await server.createKey('production', 'client');
    server.revokeKey(key);
    const revoked = servers.connect(server, { key });
    expect((await withTimeout(revoked.closed, 5000, 'close')).code).toBe(4401);
  });

  it('closes with 4400 when flagplane.v1 is not offered', async () => {
    const server = await servers.start();
    const client = servers.connect(server, { protocols: [], headers: { authorization: `Bearer ${DEMO.prodServerKey}` } });
    await client.opened;
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed.code).toBe(CLOSE_CODES.protocolError);
    expect(closed.reason).toContain('flagplane.v1');
  });

  it('closes with 4400 when a frame arrives before connected', async () => {
    const server = await servers.start({ connectedDelayMs: 1000 });
    const client = servers.connect(server);
    await client.opened;
    client.send({ type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 });
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed).toMatchObject({ code: 4400, reason: expect.stringContaining('before connected') });
    expect(client.ofType('connected')).toHaveLength(0);
  });

  it('sends connected only after the delay of a slow authentication', async () => {
    const server = await servers.start({ connectedDelayMs: 400 });
    const connectedAt = Date.now();
    const client = servers.connect(server);
    await client.next('connected');
    expect(Date.now() - connectedAt).toBeGreaterThanOrEqual(390);
  });

  it.each([
    ['a non-JSON frame', 'hello', 'not JSON'],
    ['a JSON array', '[1]', 'object'],
    ['a frame without type', '{"environmentId":"production"}', 'type'],
    ['an unknown type', '{"type":"unsubscribe"}', 'unsubscribe'],
    ['a subscribe for another environment', '{"type":"subscribe","environmentId":"staging","lastKnownVersion":1}', 'staging'],
    ['a subscribe without lastKnownVersion', '{"type":"subscribe","environmentId":"production"}', 'lastKnownVersion'],
    ['a subscribe with a string version', '{"type":"subscribe","environmentId":"production","lastKnownVersion":"1"}', 'lastKnownVersion'],
    ['a ping without ts', '{"type":"ping"}', 'ts'],
  ])('closes with 4400 on %s, naming the fault', async (_name, frame, reasonPart) => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.send(frame);
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed.code).toBe(4400);
    expect(closed.reason).toContain(reasonPart);
  });

  it('closes with 4400 on a binary frame', async () => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.ws.send(Buffer.from([1, 2, 3]));
    expect((await withTimeout(client.closed, 5000, 'close')).code).toBe(4400);
  });

  it('keeps other connections open when one misbehaves', async () => {
    const server = await servers.start();
    const good = servers.connect(server);
    const bad = servers.connect(server);
    await good.next('connected');
    await bad.next('connected');
    bad.send('oops');
    await withTimeout(bad.closed, 5000, 'close');
    good.send({ type: 'ping', ts: 1 });
    expect(await good.next('pong')).toEqual({ type: 'pong', ts: 1 });
    await sleep(20);
    expect(server.stores.keys.findActive(DEMO.prodClientKey)).toBeDefined();
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
