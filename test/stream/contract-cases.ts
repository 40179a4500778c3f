import { describe, expect, it } from 'vitest';
import type { SocketOpener } from '../../src/stream/socket-types';
import { StreamError } from '../../src/stream/stream-error';
import type { StreamTransport } from '../../src/stream/stream-transport';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { countingScheduler, recordStream } from './harness';
import type { SocketSpy } from './servers';
import { DEMO, sleep, useReferenceServers, waitFor } from './servers';

/** What a contract run streams on, and the spy on its sockets; called once per stream. */
export type SpiedTransport = () => { transport: SocketOpener | StreamTransport; spy: SocketSpy };

/**
 * The stream contract against the real reference server (real sockets, real timers, random
 * fixed at 0 so that the first reconnect comes after exactly 1 s). Shared by both adapters
 * and by `webSocketTransport`.
 */
export function describeStreamContract(name: string, spied: SpiedTransport): void {
  describe(`stream contract over ${name}`, () => {
    const servers = useReferenceServers();

    function open(streamUrl: string, sdkKey: string, version: number | null) {
      const { scheduler, pending } = countingScheduler(0);
      const { transport, spy } = spied();
      const stream = servers.track(recordStream({ streamUrl, sdkKey, transport, scheduler, version }));
      return { ...stream, spy, pending };
    }

    it('handshakes from the http origin, subscribes, and notifies the version a publish announces', async () => {
      const server = await servers.start();
      // lastKnownVersion 0 is below the current 1, so the server answers the subscribe at once,
      // which also proves the subscription is active before the publish.
      const stream = open(server.baseUrl, DEMO.prodClientKey, 0);
      await waitFor(() => stream.notifies().length === 1, 'the answer to subscribe');
      expect(stream.connections()).toEqual(['streaming']);
      expect(stream.spy.sent).toEqual([{ type: 'subscribe', environmentId: 'production', lastKnownVersion: 0 }]);
      expect(stream.notifies()).toEqual([{ kind: 'updated', version: 1 }]);

      const { version } = await server.publish('production', { schemaVersion: 1, flags: {} });
      expect(version).toBe(2);
      await waitFor(() => stream.notifies().length === 2, 'snapshot.updated');
      expect(stream.notifies()[1]).toEqual({ kind: 'updated', version: 2 });
      expect(stream.errors()).toEqual([]);
    });

    it('subscribes with lastKnownVersion null and gets a resync', async () => {
      const server = await servers.start();
      const stream = open(server.wsUrl, DEMO.stagingServerKey, null);
      await waitFor(() => stream.notifies().length === 1, 'snapshot.resync');
      expect(stream.spy.sent).toEqual([{ type: 'subscribe', environmentId: 'staging', lastKnownVersion: null }]);
      expect(stream.notifies()).toEqual([{ kind: 'resync', version: 1 }]);
    });

    it('answers the server pings with the same ts, so the server keeps the stream open', async () => {
      const server = await servers.start({ heartbeatMs: 300 });
      const stream = open(server.wsUrl, DEMO.prodClientKey, 1);
      await waitFor(() => stream.spy.sent.filter((frame) => frame.type === 'pong').length >= 2, 'two pongs');
      const pings = stream.spy.received.filter((frame) => frame.type === 'ping').map((frame) => frame.ts);
      const pongs = stream.spy.sent.filter((frame) => frame.type === 'pong').map((frame) => frame.ts);
      expect(pongs.every((ts) => typeof ts === 'number')).toBe(true);
      expect(pings.slice(0, pongs.length)).toEqual(pongs);
      // The reference server closes with 4400 on a malformed pong.
      expect(stream.errors().filter((error) => error.closeCode === 4400)).toEqual([]);
    });

    it('reconnects after the server restarts on the same port, and resubscribes', async () => {
      const server = await servers.start();
      const stream = open(server.wsUrl, DEMO.prodClientKey, 0);
      await waitFor(() => stream.notifies().length === 1, 'subscribed');
      server.publish('production', { schemaVersion: 1, flags: {} });
      await waitFor(() => stream.notifies().length === 2, 'version 2');
      stream.setVersion(2);

      await server.close();
      await waitFor(() => stream.connections().includes('reconnecting'), 'reconnecting');
      const restarted = await servers.start({ port: server.port });
      await waitFor(() => stream.connections().at(-1) === 'streaming' && stream.notifies().length === 3, 'streaming again');

      const connections = stream.connections();
      expect(connections.slice(0, 2)).toEqual(['streaming', 'reconnecting']);
      expect(connections.filter((c) => c === 'streaming')).toHaveLength(2);
      // The restarted server is back at version 1, below what the client knows.
      expect(stream.notifies()[2]).toEqual({ kind: 'resync', version: 1 });
      expect(stream.spy.sent.filter((frame) => frame.type === 'subscribe').at(-1)).toEqual({ type: 'subscribe', environmentId: 'production', lastKnownVersion: 2 });
      // 1001 is not an error; refused connections while the server was down may be.
      expect(stream.errors().filter((error) => error.closeCode !== null)).toEqual([]);

      restarted.publish('production', { schemaVersion: 1, flags: {} });
      await waitFor(() => stream.notifies().length === 4, 'an update from the restarted server');
      expect(stream.notifies()[3]).toEqual({ kind: 'updated', version: 2 });
    });

    it('after a going-away close, reconnects at random × 1 s through the same URL to the other server, without an error', async () => {
      const [a, b] = [await servers.start(), await servers.start()];
      const proxy = await startTcpProxy([a, b].map((server) => ({ host: '127.0.0.1', port: server.port })));
      try {
        const { scheduler, pending } = countingScheduler(0.3);
        const delays: number[] = [];
        const recording = { ...scheduler, setTimeout: (callback: () => void, ms: number) => (delays.push(ms), scheduler.setTimeout(callback, ms)) };
        const { transport, spy } = spied();
        const stream = servers.track(recordStream({ streamUrl: proxy.url, sdkKey: DEMO.prodClientKey, transport, scheduler: recording, version: 1 }));
        await waitFor(() => stream.connections().includes('streaming'), 'streaming through A');
        expect(proxy.forwarded).toEqual([1, 0]);

        delays.length = 0;
        await a.close();
        await waitFor(() => stream.connections().filter((c) => c === 'streaming').length === 2, 'streaming again, through B');
        expect(stream.connections()).toEqual(['streaming', 'reconnecting', 'connecting', 'streaming']);
        // The reconnect timer asked for random × 1000 ms, then the handshake and heartbeat windows.
        expect(delays[0]).toBe(300);
        expect(proxy.forwarded).toEqual([1, 1]);
        expect(stream.errors()).toEqual([]);
        expect(spy.sent.filter((frame) => frame.type === 'subscribe')).toEqual([
          { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 },
          { type: 'subscribe', environmentId: 'production', lastKnownVersion: 1 },
        ]);

        const { version } = await b.publish('production', { schemaVersion: 1, flags: {} });
        await waitFor(() => stream.notifies().some((notify) => notify.version === version), 'the publish through B');
        expect(stream.notifies()).toEqual([{ kind: 'updated', version }]);
        stream.connection.close();
        expect(pending.size).toBe(0);
      } finally {
        await proxy.close();
      }
    });

    it('stops with a 4403 StreamError when the key is revoked, and never reconnects', async () => {
      const server = await servers.start();
      const key = await server.createKey('production', 'client');
      const stream = open(server.wsUrl, key, 1);
      await waitFor(() => stream.connections().includes('streaming'), 'streaming');
      server.revokeKey(key);
      await waitFor(() => stream.connections().includes('stopped'), 'stopped');

      expect(stream.connections()).toEqual(['streaming', 'stopped']);
      const errors = stream.errors();
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(StreamError);
      expect(errors[0]).toMatchObject({ code: 'stream', closeCode: 4403, reason: 'the SDK key has been revoked' });
      expect(stream.pending.size).toBe(0);
      // The first reconnect would come after exactly 1 s.
      await sleep(1500);
      expect(stream.spy.opened).toBe(1);
    });

    it('stops with a 4401 StreamError for a bad key', async () => {
      const server = await servers.start();
      const stream = open(server.wsUrl, 'svc_sdk_client_unknown_0000', 1);
      await waitFor(() => stream.connections().includes('stopped'), 'stopped');
      expect(stream.connections()).toEqual(['stopped']);
      expect(stream.errors()).toMatchObject([{ code: 'stream', closeCode: 4401, reason: 'unknown SDK key' }]);
      expect(stream.pending.size).toBe(0);
      await sleep(1500);
      expect(stream.spy.opened).toBe(1);
    });

    it('close() closes the socket and leaves nothing running', async () => {
      const server = await servers.start({ heartbeatMs: 100 });
      const stream = open(server.wsUrl, DEMO.prodClientKey, 1);
      await waitFor(() => stream.connections().includes('streaming'), 'streaming');
      stream.connection.close();
      expect(stream.pending.size).toBe(0);
      const logged = stream.log.length;
      const sent = stream.spy.sent.length;
      // Pings every 100 ms would be answered and recorded if the socket were still used.
      await sleep(500);
      expect(stream.log).toHaveLength(logged);
      expect(stream.spy.sent).toHaveLength(sent);
      expect(stream.spy.opened).toBe(1);
    });
  });
}
