import { WebSocket as WsWebSocket } from 'ws';
import { useServerPool } from '../helpers/reference-server';
import type { SocketOpener } from '../../src/stream/socket-types';
import type { StreamConnection } from '../../src/stream/stream-connection';

import { DEMO } from '../helpers/reference-server';

export { DEMO };

/**
 * Starts reference servers and tracks stream connections for one test file; after each
 * test every connection is closed and every server released, even when a test failed.
 */
export function useReferenceServers() {
  const connections: StreamConnection[] = [];
  const start = useServerPool(() => {
    for (const connection of connections.splice(0)) connection.close();
  });
  return {
    start,
    track<T extends { connection: StreamConnection }>(stream: T): T {
      connections.push(stream.connection);
      return stream;
    },
  };
}

/** The sockets a test opened, and the frames both ways. */
export interface SocketSpy {
  opened: number;
  received: Array<Record<string, unknown>>;
  sent: Array<Record<string, unknown>>;
}

const newSpy = (): SocketSpy => ({ opened: 0, received: [], sent: [] });

/** Wraps a transport to count the sockets it opens and record the frames both ways. */
export function spyTransport(inner: SocketOpener) {
  const spy = newSpy();
  const transport: SocketOpener = (url, options, handlers) => {
    spy.opened++;
    const socket = inner(url, options, {
      ...handlers,
      onMessage: (data) => {
        spy.received.push(JSON.parse(data) as Record<string, unknown>);
        handlers.onMessage(data);
      },
    });
    return {
      send: (data) => {
        spy.sent.push(JSON.parse(data) as Record<string, unknown>);
        socket.send(data);
      },
      close: (code, reason) => socket.close(code, reason),
    };
  };
  return { transport, spy };
}

/**
 * Installs, as the global WebSocket, ws's WHATWG-style class (what `webSocketTransport` drives),
 * spied on: it counts the sockets opened and records the frames both ways. The test file
 * restores the original global.
 */
export function spyGlobalWebSocket(): SocketSpy {
  const spy = newSpy();
  (globalThis as { WebSocket?: unknown }).WebSocket = class extends WsWebSocket {
    constructor(url: string, protocols: string[]) {
      super(url, protocols);
      spy.opened++;
      this.on('message', (data) => spy.received.push(JSON.parse(String(data)) as Record<string, unknown>));
    }

    override send(data: unknown): void {
      spy.sent.push(JSON.parse(String(data)) as Record<string, unknown>);
      super.send(data as string);
    }
  };
  return spy;
}

/** Polls `check` with real timers; fails after `timeoutMs` (generous: the machine is shared). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
