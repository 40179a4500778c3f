/**
 * The gateway's notifications while a fan-out is under way, over real sockets: the fan-out is
 * held between slices by a scheduler the test drives, so streams can close, subscribe and
 * re-subscribe between two slices, and a second publish can come before the first is done.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { createEnvironmentStore } from '../../../reference-server/stores/environment-store';
import { createKeyStore } from '../../../reference-server/stores/key-store';
import type { Evictions } from '../../../reference-server/stores/records';
import type { FanOutScheduler } from '../../../reference-server/stream/fan-out';
import { createStreamGateway, type StreamGateway } from '../../../reference-server/stream/gateway';
import { StreamClient, withTimeout } from '../helpers';

const KEY = 'svc_sdk_client_fanout_test_0001';
const OTHER_KEY = 'svc_sdk_client_fanout_test_0002';
const snapshot = (version: number, environmentId = 'production') => ({ schemaVersion: 1 as const, version, environmentId, flags: {} });

/** Every look at the clock is a slice's worth later, so each slice makes 16 deliveries; deferred slices wait for `drain`. */
function heldScheduler() {
  const deferred: Array<() => void> = [];
  let now = 0;
  const scheduler: FanOutScheduler = {
    now: () => (now += 1000),
    defer(slice) {
      deferred.push(slice);
      return () => deferred.splice(deferred.indexOf(slice), 1);
    },
  };
  return {
    scheduler,
    held: () => deferred.length,
    drain() {
      for (let slice = deferred.shift(); slice; slice = deferred.shift()) slice();
    },
  };
}

const opened: Array<{ gateway: StreamGateway; http: Server; clients: StreamClient[] }> = [];

afterEach(async () => {
  for (const { gateway, http, clients } of opened.splice(0)) {
    for (const client of clients) client.ws.terminate();
    await gateway.close();
    await new Promise((resolve) => http.close(resolve));
  }
});

async function startGateway() {
  const environments = createEnvironmentStore([
    { id: 'production', kind: 'production', snapshot: snapshot(1) },
    { id: 'staging', kind: 'staging', snapshot: snapshot(1, 'staging') },
  ]);
  const keys = createKeyStore([
    { key: KEY, kind: 'client', environmentId: 'production' },
    { key: OTHER_KEY, kind: 'client', environmentId: 'staging' },
  ]);
  const evictions: Evictions = { events: 0, identifyRows: 0, snapshotVersions: 0, traitUsers: 0, streamsRefused: 0, requestsLimited: 0 };
  const held = heldScheduler();
  const gateway = createStreamGateway({
    stores: { environments, keys, evictions },
    heartbeatMs: 60_000,
    transportPingMs: 60_000,
    connectedDelayMs: 0,
    ws,
    fanOutScheduler: held.scheduler,
  });
  const http = createServer();
  http.on('upgrade', gateway.handleUpgrade);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as { port: number }).port;
  const clients: StreamClient[] = [];
  opened.push({ gateway, http, clients });

  const subscribe = async (lastKnownVersion: number, key = KEY, environmentId = 'production') => {
    const client = new StreamClient(new ws.WebSocket(`ws://127.0.0.1:${port}/sdk/v1/stream`, ['flagplane.v1', `flagplane.key.${key}`]));
    clients.push(client);
    await client.next('connected');
    client.send({ type: 'subscribe', environmentId, lastKnownVersion });
    await client.barrier();
    return client;
  };
  /** Stores `version` as current, as a publish does, and starts its fan-out. */
  const publish = (version: number) => {
    environments.put(snapshot(version));
    return gateway.notifyUpdated('production', version);
  };
  return { gateway, held, subscribe, publish };
}

const updates = (client: StreamClient) => client.ofType('snapshot.updated').map((message) => message.version);

describe('fan-out through the gateway', () => {
  it('gives every subscriber exactly one notification per publish, in the order of the versions, across two quick publishes', async () => {
    const { held, subscribe, publish } = await startGateway();
    const subscribers = await Promise.all(Array.from({ length: 40 }, () => subscribe(1)));
    const other = await subscribe(1, OTHER_KEY, 'staging');
    const second = publish(2);
    const third = publish(3);
    expect(held.held()).toBe(1);
    held.drain();
    expect(await Promise.all([second, third])).toEqual([40, 40]);
    for (const client of [...subscribers, other]) await client.barrier();
    for (const client of subscribers) expect(updates(client)).toEqual([2, 3]);
    expect(updates(other)).toEqual([]);
  });

  it('skips a stream that closes mid-fan-out, and tells one that subscribes mid-fan-out in its subscribe answer, once', async () => {
    const { gateway, held, subscribe, publish } = await startGateway();
    const subscribers = await Promise.all(Array.from({ length: 40 }, () => subscribe(1)));
    const sent = publish(2);
    expect(held.held()).toBe(1);
    // The first slice reached the first 16; the 31st has not been reached yet.
    const leaving = subscribers[30]!;
    leaving.ws.close(1000);
    expect((await withTimeout(leaving.closed, 5000, 'close')).code).toBe(1000);
    const late = await subscribe(1);
    const resubscribing = subscribers[35]!;
    resubscribing.send({ type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 });
    await resubscribing.barrier();
    expect(updates(late)).toEqual([2]);
    expect(updates(resubscribing)).toEqual([2]);
    held.drain();
    expect(await sent).toBe(38);
    for (const client of [...subscribers, late]) if (client !== leaving) await client.barrier();
    expect(updates(leaving)).toEqual([]);
    expect(updates(late)).toEqual([2]);
    for (const client of subscribers.filter((c) => c !== leaving)) expect(updates(client)).toEqual([2]);
    expect(gateway.subscribersOf('production')).toHaveLength(40);
    void publish(3);
    held.drain();
    for (const client of [...subscribers, late]) if (client !== leaving) expect(updates(await barrierThen(client))).toEqual([2, 3]);
  });

  it('counts resync by the streams it reached, once the fan-out is done', async () => {
    const { gateway, held, subscribe } = await startGateway();
    const subscribers = await Promise.all(Array.from({ length: 20 }, () => subscribe(1)));
    const notified = gateway.notifyResync('production', 'operator');
    held.drain();
    expect(await notified).toBe(20);
    for (const client of subscribers) expect(await client.next('snapshot.resync')).toMatchObject({ version: 1, reason: 'operator' });
  });
});

async function barrierThen(client: StreamClient): Promise<StreamClient> {
  await client.barrier();
  return client;
}
