import { FlagplaneError, messageOf } from '../shared/errors';
import type { Scheduler } from '../shared/scheduler';
import type { StreamConnection } from './stream-connection';
import type { StreamConnectionState } from './stream-machine';
import type { StreamTransport } from './stream-transport';
import type { MachineEvent } from '../machine/transition';

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
  /** Given when the client shares snapshots with its other tabs: the stream then takes turns with them. */
  fetched: false | (() => Promise<void>);
  dispatch(event: MachineEvent): void;
  onError(error: FlagplaneError): void;
}) {
  const { streamUrl, dispatch } = options;
  // A transport without a streamUrl is not a stream (options.ts rejects the converse).
  const transport = streamUrl && options.transport;
  const changed = (connection: StreamConnectionState) => dispatch({ type: 'stream-state', connection });
  /**
   * The connection; `'over'` once the stream stopped for good (a bad or revoked key, a
   * transport that cannot open): no reconnect then, even after offline (protocol.md §6.4).
   */
  let link: StreamConnection | 'over' | undefined;
  /** Counts connects and disconnects: a listener of `connecting` may close the client, and a closed connection's last words are stale. */
  let generation = 0;
  /** Runs a call into the transport, which is app code: what it throws is reported, never thrown; whether it threw. */
  const threw = (call: () => void) => {
    try {
      call();
      return false;
    } catch (cause) {
      options.onError(new FlagplaneError('stream', `the stream transport threw: ${messageOf(cause)}`, cause));
      return true;
    }
  };
  return {
    connect(): void {
      if (!transport || link) return;
      const current = ++generation;
      changed('connecting');
      if (current !== generation) return;
      const failed = threw(() => {
        // The options carry streamUrl, sdkKey, scheduler, lastKnownVersion, fetched and onError already.
        const opened = transport.connect({
          ...(options as typeof options & { streamUrl: string }),
          onNotify: (kind, version) => dispatch({ type: 'stream-notify', kind, version }),
          onConnectionChange(state) {
            if (current !== generation) return;
            if (state === 'stopped') link = 'over';
            changed(state);
          },
        });
        // Disconnected (close() from a listener) while opening: closed at once. Stopped while
        // opening: stays over.
        if (current !== generation) opened.close();
        else link ??= opened;
      });
      if (failed) {
        link = 'over';
        changed('stopped');
      }
    },
    /**
     * Closes the connection until the next `connect()` (back online): the stream is
     * `reconnecting` meanwhile, unless it stopped for good. Also called by `close()`, whose
     * stopped machine ignores that.
     */
    disconnect(): void {
      // Over for good: nothing open, nothing to report.
      if (link === 'over') return;
      // Cleared first: close() reports `stopped` through dispatch, which may lead back here.
      const current = link;
      link = undefined;
      generation++;
      threw(() => current?.close());
      if (transport) changed('reconnecting');
    },
  };
}
