import { describe, expect, it } from 'vitest';
import { openWebSocket, webSocketTransport } from '../../adapters/websocket';
import { openWs, wsTransport } from '../../adapters/ws';
import { demoConfig, startReferenceServer } from '../../reference-server/index';
import { createClient } from '../../src/client';
import type { FlagplaneError } from '../../src/shared/errors';
import type { SocketOpener } from '../../src/stream/socket-types';
import { defineStreamTransport, type StreamTransport } from '../../src/stream/stream-transport';
import { useReferenceServer } from '../helpers/reference-server';
import { snapshotOf } from '../helpers/snapshots';
import { waitFor } from '../helpers/wait-for';

const reference = useReferenceServer();
const TEN_MINUTES = 600_000;


function countingTransport(open: SocketOpener) {
  const counter = { opened: 0 };
  const transport: StreamTransport = defineStreamTransport((url, options, handlers) => {
    counter.opened++;
    return open(url, options, handlers);
  });
  return { transport, counter };
}

// Node 22 and later have a global WebSocket, which apps there use instead of `ws`.
const transports: Array<[string, StreamTransport, SocketOpener]> = [['ws', wsTransport, openWs]];
if (typeof WebSocket == 'function') transports.push(['the global WebSocket', webSocketTransport, openWebSocket]);

function start(sdkKey: string, streamTransport: StreamTransport) {
  const errors: FlagplaneError[] = [];
  const client = createClient({
    sdkKey,
    baseUrl: reference.server.baseUrl,
    streamUrl: reference.server.baseUrl,
    streamTransport,
    pollInterval: TEN_MINUTES,
    onError: (error) => errors.push(error),
  });
  reference.clients.push(client);
  return { client, errors };
}

describe.each(transports)('the client stream against the reference server (real WebSockets, %s)', (_name, transport, open) => {
  it('sees a published change through the stream, long before the next poll', async () => {
    const { client } = start(await reference.server.createKey('production', 'server'), transport);
    await client.ready();
    await waitFor(() => client.getStatus().connection === 'streaming', 5000, 'streaming');
    const { version } = await reference.server.publish('production', snapshotOf(0, { pushed: 'through the stream' }));
    await waitFor(() => client.get('pushed') === 'through the stream', 5000, 'the pushed value');
    expect(client.getStatus().version).toBe(version);
  });

  it('reconnects after the server restarts on the same port and catches up', async () => {
    // A key of the demo config, so that the restarted server knows it too.
    const { client } = start('svc_sdk_server_demo_prod_0001', transport);
    await client.ready();
    await waitFor(() => client.getStatus().connection === 'streaming', 5000, 'streaming');
    const port = reference.server.port;
    await reference.server.close();
    await waitFor(() => client.getStatus().connection === 'reconnecting', 5000, 'reconnecting');
    const config = demoConfig();
    const production = config.environments.find((environment) => environment.id === 'production')!;
    production.snapshot = { ...snapshotOf(50, { restarted: 'yes' }), environmentId: 'production' };
    reference.server = await startReferenceServer({ port, config });
    await waitFor(() => client.getStatus().connection === 'streaming', 10_000, 'streaming again');
    await waitFor(() => client.get('restarted') === 'yes', 5000, 'the restarted server snapshot');
    expect(client.getStatus().version).toBe(50);
  });

  it('revoking the key closes the stream and stops reconnects; reads keep the snapshot', async () => {
    const key = await reference.server.createKey('production', 'client');
    reference.server.publish('production', snapshotOf(0, { kept: 'value' }));
    const counting = countingTransport(open);
    const { client, errors } = start(key, counting.transport);
    await client.ready();
    await waitFor(() => client.getStatus().connection === 'streaming', 5000, 'streaming');
    reference.server.revokeKey(key);
    await waitFor(() => errors.some((error) => error.code === 'stream'), 5000, 'a stream error');
    expect(client.getStatus().connection).toBe('polling');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(counting.counter.opened).toBe(1);
    expect(client.get('kept')).toBe('value');
  });
});

describe('streamUrl as the reference server prints it', () => {
  it('the stream\'s whole URL (ws://host:port/sdk/v1/stream) streams like the origin', async () => {
    const client = createClient({
      sdkKey: 'svc_sdk_client_demo_prod_0001',
      baseUrl: reference.server.baseUrl,
      streamUrl: `${reference.server.baseUrl.replace(/^http/, 'ws')}/sdk/v1/stream`,
      streamTransport: wsTransport,
      pollInterval: TEN_MINUTES,
    });
    reference.clients.push(client);
    await client.ready();
    await waitFor(() => client.getStatus().connection === 'streaming', 5000, 'streaming');
    expect(client.getStatus().error).toBeNull();
  });
});
