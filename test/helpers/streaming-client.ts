import { defineStreamTransport } from '../../src/stream/stream-transport';
import { connectedFrame, createFakeTransport } from '../stream/harness';
import { harness } from './client-harness';
import { snapshotServer } from './fake-transport';
import { switchableSource } from './platform-source';
import { snapshotOf } from './snapshots';

/**
 * A client (the harness) on fake sockets, polling only every 10 minutes, with switchable
 * network and visibility (both on); its snapshot server holds version `initialVersion`.
 */
export function streamingClient(options: Parameters<typeof harness>[1] = {}, initialVersion = 1) {
  const server = snapshotServer(snapshotOf(initialVersion, { a: initialVersion }));
  const sockets = createFakeTransport();
  const net = switchableSource(true);
  const page = switchableSource(true);
  const h = harness(server.handler, {
    streamUrl: 'https://stream.test',
    streamTransport: defineStreamTransport(sockets.transport),
    pollInterval: 600_000,
    onlineSource: net.online,
    visibilitySource: page.visibility,
    ...options,
  });
  return { ...h, server, sockets, net, page };
}

/** ready(), then the socket opens and the server says `connected` (version 1, heartbeat 15 s). */
export async function connectClient(h: ReturnType<typeof streamingClient>): Promise<void> {
  await h.client.ready();
  h.sockets.last.open();
  h.sockets.last.receive(connectedFrame());
}
