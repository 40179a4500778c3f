import type { SocketOpener } from './socket-types';
import { createStreamConnection, type StreamConnection, type StreamConnectionOptions } from './stream-connection';

/** What the client passes when it opens the stream. */
export type StreamConnectOptions = Omit<StreamConnectionOptions, 'transport'>;

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
