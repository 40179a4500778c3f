import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 that gives several backends one address, as a load balancer would. */
export interface TcpProxy {
  /** `http://127.0.0.1:port` */
  readonly url: string;
  /** Connections forwarded to each backend (by its index in `backends`), counted when the backend accepted them. */
  readonly forwarded: readonly number[];
  /** Stops listening and destroys every connection it holds. */
  close(): Promise<void>;
}

/**
 * Forwards each new connection to the first backend (`host:port`, in order) that accepts it,
 * falling back to the next one when a backend refuses; a connection no backend accepts is
 * closed. Bytes are piped as they are, in both directions: the proxy never reads HTTP, so a
 * WebSocket's close frame reaches the client as its backend sent it.
 */
export async function startTcpProxy(backends: ReadonlyArray<{ host: string; port: number }>): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const forwarded = backends.map(() => 0);
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset on either side ends the pair below; it is not an error of the proxy.
    socket.on('error', () => socket.destroy());
  };

  function forward(client: Socket, index: number): void {
    const backend = backends[index];
    if (!backend || client.destroyed) {
      client.destroy();
      return;
    }
    const upstream = connect(backend.port, backend.host);
    track(upstream);
    const refused = () => forward(client, index + 1);
    upstream.once('error', refused);
    upstream.once('connect', () => {
      upstream.off('error', refused);
      forwarded[index] = (forwarded[index] ?? 0) + 1;
      client.pipe(upstream);
      upstream.pipe(client);
      // Ended, not destroyed: what one side wrote last (a close frame, a response) still goes out.
      client.on('close', () => upstream.end());
      upstream.on('close', () => client.end());
      client.resume();
    });
  }

  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    forward(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
