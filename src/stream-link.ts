import { FlagplaneError } from './errors';
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
  /** Counts connects and disconnects: a listener of `connecting` may close the client, and a closed connection's last words are stale. */
  let generation = 0;
  /** Stopped for good (a bad or revoked key, a transport that cannot open): no reconnect, even after offline (§6.4). */
  let over = false;
  /** Runs a call into the transport, which is app code: what it throws is reported, never thrown; whether it threw. */
  const threw = (call: () => void) => {
    try {
      call();
      return false;
    } catch (cause) {
      options.onError(new FlagplaneError('stream', `the stream transport threw: ${(cause as Error)?.message ?? cause}`, cause));
      return true;
    }
  };
  return {
    connect(): void {
      if (!transport || connection || over) return;
      const current = ++generation;
      changed('connecting');
      if (current !== generation) return;
      const failed = threw(() => {
        // The options carry streamUrl, sdkKey, scheduler, lastKnownVersion and onError already.
        connection = transport.connect({
          ...(options as typeof options & { streamUrl: string }),
          onNotify: (kind, version) => dispatch({ type: 'stream-notify', kind, version }),
          onConnectionChange(state) {
            if (current !== generation) return;
            over = state === 'stopped';
            changed(state);
          },
        });
      });
      if (failed) {
        over = true;
        changed('stopped');
      }
    },
    /**
     * Closes the connection until the next `connect()` (back online): the stream is
     * `reconnecting` meanwhile, unless it stopped for good. Also called by `close()`, whose
     * stopped machine ignores that.
     */
    disconnect(): void {
      // Cleared first: close() reports `stopped` through dispatch, which may lead back here.
      const current = connection;
      connection = undefined;
      generation++;
      threw(() => current?.close());
      if (transport && !over) changed('reconnecting');
    },
  };
}
