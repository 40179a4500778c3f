import type { FlagplaneError } from './errors';
import type { Scheduler } from './scheduler';
import type { StreamConnection } from './stream/stream-connection';
import type { StreamTransport } from './stream/stream-transport';
import type { MachineEvent } from './transition';

/**
 * The client's end of the stream: opens and closes connections on the transport and turns
 * their callbacks into machine events. `open()` without a stream configured does nothing.
 */
export function createStreamLink(options: {
  streamUrl: string | undefined;
  transport: StreamTransport | undefined;
  sdkKey: string;
  scheduler: Scheduler;
  lastKnownVersion(): number | null;
  dispatch(event: MachineEvent): void;
  report(error: FlagplaneError): void;
}) {
  const { streamUrl, transport, dispatch } = options;
  let connection: StreamConnection | null = null;
  return {
    configured: Boolean(streamUrl && transport),
    connect(): void {
      if (!streamUrl || !transport || connection) return;
      dispatch({ type: 'stream-state', connection: 'connecting' });
      connection = transport.connect({
        streamUrl,
        sdkKey: options.sdkKey,
        scheduler: options.scheduler,
        lastKnownVersion: options.lastKnownVersion,
        onNotify: (kind, version) => dispatch({ type: 'stream-notify', kind, version }),
        onConnectionChange: (state) => dispatch({ type: 'stream-state', connection: state }),
        onError: options.report,
      });
    },
    disconnect(): void {
      const current = connection;
      connection = null;
      current?.close();
    },
  };
}
