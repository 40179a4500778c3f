import type { SocketOpener } from './socket-types';
import { createStreamConnection, type StreamConnectOptions, type StreamConnection } from './stream-connection';

export type { StreamConnectOptions };

/**
 * The client's `streamTransport` option: opens a stream connection. It carries the stream
 * machine with it, so an app that never streams never bundles it.
 */
export interface StreamTransport {
  connect(options: StreamConnectOptions): StreamConnection;
}

/** Builds a {@link StreamTransport} on a socket opener — the way to plug any platform's socket. */
export function defineStreamTransport(open: SocketOpener): StreamTransport {
  return { connect: (options) => createStreamConnection({ ...options, transport: open }) };
}
