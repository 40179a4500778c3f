import { describe, expect, it } from 'vitest';
import { sleep, useServers, withTimeout } from '../helpers';

const servers = useServers();

describe('application heartbeat', () => {
  it('sends ping frames with a numeric ts every heartbeatMs', async () => {
    const server = await servers.start({ heartbeatMs: 60 });
    const client = servers.connect(server);
    expect((await client.next('connected')).heartbeatMs).toBe(60);
    const first = await client.next('ping', 3000);
    const second = await client.next('ping', 3000);
    expect(typeof first.ts).toBe('number');
    expect(second.ts as number).toBeGreaterThanOrEqual(first.ts as number);
    expect(Object.keys(first).sort()).toEqual(['ts', 'type']);
  });

  it('does not ping a connection before connected was sent', async () => {
    const server = await servers.start({ heartbeatMs: 40, connectedDelayMs: 1000 });
    const client = servers.connect(server);
    await client.opened;
    await sleep(300);
    expect(client.messages).toEqual([]);
    expect((await client.next()).type).toBe('connected');
  });

  it('closes a pinged stream with 1001 when the server closes', async () => {
    const server = await servers.start({ heartbeatMs: 40 });
    const client = servers.connect(server);
    await client.next('ping', 3000);
    await server.close();
    const closed = await client.closed;
    expect(closed.code).toBe(1001);
  });
});

describe('transport heartbeat', () => {
  it('terminates a socket that does not answer WebSocket pings', async () => {
    const server = await servers.start({ transportPingMs: 80, heartbeatMs: 60_000 });
    const silent = servers.connect(server, { wsOptions: { autoPong: false } });
    let pings = 0;
    silent.ws.on('ping', () => pings++);
    await silent.next('connected');
    const closed = await withTimeout(silent.closed, 5000, 'termination');
    expect(closed.code).toBe(1006);
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(server.stores.keys.list().length).toBeGreaterThan(0);
  });

  it('keeps a socket that answers WebSocket pings', async () => {
    const server = await servers.start({ transportPingMs: 200, heartbeatMs: 60_000 });
    const client = servers.connect(server);
    let pings = 0;
    client.ws.on('ping', () => pings++);
    await client.next('connected');
    await sleep(1000);
    expect(pings).toBeGreaterThanOrEqual(3);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    client.send({ type: 'ping', ts: 5 });
    expect(await client.next('pong')).toEqual({ type: 'pong', ts: 5 });
  });
});
