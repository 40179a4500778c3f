export { defineStreamTransport } from './stream-transport';
export { createStreamConnection, streamEndpoint } from './stream-connection';
export { StreamError } from './stream-error';
export type { StreamTransport, StreamConnectOptions } from './stream-transport';
export type { StreamConnection, StreamConnectionOptions } from './stream-connection';
export type { SocketOpener, StreamSocket, StreamSocketHandlers } from './socket-types';
export type { StreamConnectionState, StreamNotifyKind } from './stream-machine';
