import { describe, expect, it } from 'vitest';
import { answerSubscribe } from '../../reference-server/stream/messages';
import { admin, DEMO, sleep, useServers } from './helpers';

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
