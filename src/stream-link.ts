import type { FlagplaneError } from './errors';
import type { Scheduler } from './scheduler';
import type { StreamConnection } from './stream/stream-connection';
import type { StreamConnectionState } from './stream/stream-machine';
import type { StreamTransport } from './stream/stream-transport';
import type { MachineEvent } from './transition';

/**
 * The client's end of the stream: opens and closes connections on the transport and turns
 * their callbacks into machine events. Without a stream configured both methods do nothing.
 */
export function createStreamLink(options: {
  streamUrl: string | undefined;
  transport: StreamTransport | undefined;
  sdkKey: string;
  scheduler: Scheduler;
  lastKnownVersion(): number | null;
  dispatch(event: MachineEvent): void;
  onError(error: FlagplaneError): void;
}) {
  const { streamUrl, dispatch } = options;
  // A transport without a streamUrl is not a stream (options.ts rejects the converse).
  const transport = streamUrl && options.transport;
  const changed = (connection: StreamConnectionState) => dispatch({ type: 'stream-state', connection });
  let connection: StreamConnection | undefined;
  /** Counts connects and disconnects: a listener of `connecting` may close the client. */
  let generation = 0;
  return {
    connect(): void {
      if (!transport || connection) return;
      const current = ++generation;
      changed('connecting');
      if (current !== generation) return;
      // The options carry streamUrl, sdkKey, scheduler, lastKnownVersion and onError already.
      connection = transport.connect({
        ...(options as typeof options & { streamUrl: string }),
        onNotify: (kind, version) => dispatch({ type: 'stream-notify', kind, version }),
        onConnectionChange: changed,
      });
    },
    /**
     * Closes the connection until the next `connect()` (back online): the stream is
     * `reconnecting` meanwhile. Also called by `close()`, whose stopped machine ignores that.
     */
    disconnect(): void {
      // Cleared first: close() reports `stopped` through dispatch, which may lead back here.
      const current = connection;
      connection = undefined;
      generation++;
      current?.close();
      if (transport) changed('reconnecting');
    },
  };
}
