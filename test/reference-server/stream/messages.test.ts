import { describe, expect, it } from 'vitest';
import { answerSubscribe } from '../../../reference-server/stream/messages';
import { admin, DEMO, sleep, useServers, withTimeout } from '../helpers';

const servers = useServers();

const empty = { schemaVersion: 1, flags: {} };

describe('answerSubscribe', () => {
  it.each([
    [3, 5, { type: 'snapshot.updated' }],
    [5, 5, { type: 'none' }],
    [6, 5, { type: 'snapshot.resync', reason: 'ahead-of-server' }],
    [null, 5, { type: 'snapshot.resync', reason: 'unknown-version' }],
    [0, 0, { type: 'none' }],
  ])('lastKnownVersion %s against current %s', (last, current, answer) => {
    expect(answerSubscribe(last, current)).toEqual(answer);
  });
});

describe('subscribe', () => {
  it('answers a version below current with snapshot.updated at once', async () => {
    const server = await servers.start();
    server.publish('production', empty);
    server.publish('production', empty);
    const client = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    expect(await client.next()).toEqual({ type: 'snapshot.updated', environmentId: 'production', version: 3 });
  });

  it('answers the current version with nothing', async () => {
    const server = await servers.start();
    const client = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    client.send({ type: 'ping', ts: 42 });
    expect(await client.next()).toEqual({ type: 'pong', ts: 42 });
  });

  it.each([
    [9, 'ahead-of-server'],
    [null, 'unknown-version'],
  ])('answers %s with snapshot.resync (%s)', async (last, reason) => {
    const server = await servers.start();
    const client = await servers.subscribe(server, DEMO.prodClientKey, 'production', last);
    expect(await client.next()).toEqual({ type: 'snapshot.resync', environmentId: 'production', version: 1, reason });
  });

  it('replaces the subscription when subscribing again', async () => {
    const server = await servers.start();
    const client = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    client.send({ type: 'subscribe', environmentId: 'production', lastKnownVersion: 0 });
    expect(await client.next()).toMatchObject({ type: 'snapshot.updated', version: 1 });
    server.publish('production', empty);
    expect(await client.next()).toMatchObject({ type: 'snapshot.updated', version: 2 });
    await sleep(50);
    expect(client.ofType('snapshot.updated')).toHaveLength(2);
  });
});

describe('publish and resync', () => {
  it('sends snapshot.updated to every subscriber of that environment only', async () => {
    const server = await servers.start();
    const a = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    const b = await servers.subscribe(server, DEMO.prodServerKey, 'production', 1);
    const staging = await servers.subscribe(server, DEMO.stagingClientKey, 'staging', 1);
    const unsubscribed = servers.connect(server, { key: DEMO.prodServerKey });
    await unsubscribed.next('connected');

    const response = await admin(server, 'PUT', '/environments/production/snapshot', empty);
    expect(await response.json()).toMatchObject({ version: 2 });
    for (const client of [a, b]) {
      expect(await client.next()).toEqual({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    }
    staging.send({ type: 'ping', ts: 7 });
    expect(await staging.next()).toEqual({ type: 'pong', ts: 7 });
    unsubscribed.send({ type: 'ping', ts: 8 });
    expect(await unsubscribed.next()).toEqual({ type: 'pong', ts: 8 });
    expect(staging.ofType('snapshot.updated')).toHaveLength(0);
    expect(unsubscribed.ofType('snapshot.updated')).toHaveLength(0);
  });

  it('never sends a snapshot body on the stream', async () => {
    const server = await servers.start();
    const client = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    server.publish('production', empty);
    expect(Object.keys(await client.next('snapshot.updated')).sort()).toEqual(['environmentId', 'type', 'version']);
  });

  it('sends snapshot.resync with reason operator on demand', async () => {
    const server = await servers.start();
    const a = await servers.subscribe(server, DEMO.stagingClientKey, 'staging', 1);
    const b = await servers.subscribe(server, DEMO.stagingServerKey, 'staging', 1);
    expect(await server.resync('staging')).toEqual({ notified: 2 });
    for (const client of [a, b]) {
      expect(await client.next()).toEqual({ type: 'snapshot.resync', environmentId: 'staging', version: 1, reason: 'operator' });
    }
    const viaAdmin = await admin(server, 'POST', '/environments/staging/resync');
    expect(await viaAdmin.json()).toEqual({ environmentId: 'staging', notified: 2 });
    expect((await a.next()).reason).toBe('operator');
  });

  it('answers client pings with the same ts', async () => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.send({ type: 'ping', ts: 1700000000123.5 });
    expect(await client.next('pong')).toEqual({ type: 'pong', ts: 1700000000123.5 });
    client.send({ type: 'pong', ts: 3 });
    client.send({ type: 'ping', ts: 4 });
    expect(await client.next('pong')).toEqual({ type: 'pong', ts: 4 });
  });
});

describe('junk on the stream', () => {
  // protocol.md §6.2: "a frame that is not JSON … closes the connection with 4400 and a reason
  // naming the fault". A text frame that is not valid UTF-8 is not JSON; left to itself ws closes
  // it 1007, which a client treats as a silent reconnect instead of a reported protocol error.
  it('closes a text frame that is not UTF-8 with 4400', async () => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await withTimeout(client.closed, 5000, 'close')).code).toBe(4400);
  });

  it('closes a frame over 64 KiB with 1009 and keeps serving other streams', async () => {
    const server = await servers.start();
    const big = servers.connect(server);
    const other = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    await big.next('connected');
    big.send({ type: 'ping', ts: 1, pad: 'x'.repeat(64 * 1024) });
    expect((await withTimeout(big.closed, 5000, 'close')).code).toBe(1009);
    server.publish('production', { schemaVersion: 1, flags: {} });
    expect(await other.next('snapshot.updated')).toEqual({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
  });

  it.each([
    ['a subscribe with a negative version', { type: 'subscribe', environmentId: 'production', lastKnownVersion: -1 }, 'lastKnownVersion'],
    ['a subscribe with a fractional version', { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1.5 }, 'lastKnownVersion'],
    ['a pong with a string ts', { type: 'pong', ts: '1' }, 'ts'],
    ['a JSON null', null, 'object'],
    ['a JSON string', 'subscribe', 'JSON'],
  ])('closes with 4400 on %s', async (_name, frame, reasonPart) => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.send(frame === null ? 'null' : frame);
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed.code).toBe(4400);
    expect(closed.reason).toContain(reasonPart);
  });

  it('sends a 4400 close reason that fits in a control frame for a very long unknown type', async () => {
    const server = await servers.start();
    const client = servers.connect(server);
    await client.next('connected');
    client.send({ type: '😀'.repeat(500) });
    const closed = await withTimeout(client.closed, 5000, 'close');
    expect(closed.code).toBe(4400);
    expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
  });

  it('notifies every one of many subscribers, then closes all of them with 1001', async () => {
    const server = await servers.start();
    const clients = await Promise.all(Array.from({ length: 40 }, () => servers.subscribe(server, DEMO.prodClientKey, 'production', 1)));
    expect(await server.resync('production')).toEqual({ notified: 40 });
    server.publish('production', { schemaVersion: 1, flags: {} });
    for (const client of clients) {
      expect(await client.next('snapshot.resync')).toMatchObject({ reason: 'operator' });
      expect(await client.next('snapshot.updated')).toMatchObject({ version: 2 });
    }
    await server.close();
    const closes = await Promise.all(clients.map((client) => withTimeout(client.closed, 5000, 'close')));
    expect(new Set(closes.map((c) => c.code))).toEqual(new Set([1001]));
  });
});
