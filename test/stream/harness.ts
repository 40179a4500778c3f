import { defaultScheduler } from '../../src/shared/scheduler';
import type { Scheduler } from '../../src/shared/scheduler';
import type { TabLock } from '../../src/platform/tab-lock';
import type { StreamSocketHandlers, SocketOpener } from '../../src/stream/socket-types';
import { createStreamConnection } from '../../src/stream/stream-connection';
import type { StreamConnection } from '../../src/stream/stream-connection';
import type { StreamError } from '../../src/stream/stream-error';
import type { StreamConnectionState, StreamNotifyKind } from '../../src/stream/stream-machine';
import type { StreamConnectOptions, StreamTransport } from '../../src/stream/stream-transport';

export const SDK_KEY = 'svc_sdk_client_stream_test_01';

/** One socket the fake transport opened; the test plays the server through it. */
export interface FakeSocket {
  readonly url: string;
  readonly protocols: string[];
  readonly sdkKey: string;
  /** Frames the client sent, parsed. */
  readonly sent: Array<Record<string, unknown>>;
  /** Every close() call the client made. */
  readonly closeCalls: Array<{ code: number | undefined; reason: string | undefined }>;
  readonly handlers: StreamSocketHandlers;
  /** Server side: a JSON frame (or a raw text frame when given a string). */
  receive(frame: unknown): void;
  open(): void;
  serverClose(code: number, reason?: string): void;
  fail(cause?: unknown): void;
}

/** A SocketOpener that records every socket it opens and never calls back by itself. */
export function createFakeTransport() {
  const sockets: FakeSocket[] = [];
  const transport: SocketOpener = (url, { protocols, sdkKey }, handlers) => {
    const socket: FakeSocket = {
      url,
      protocols,
      sdkKey,
      sent: [],
      closeCalls: [],
      handlers,
      receive: (frame) => handlers.onMessage(typeof frame === 'string' ? frame : JSON.stringify(frame)),
      open: () => handlers.onOpen(),
      serverClose: (code, reason = '') => handlers.onClose(code, reason),
      fail: (cause = new Error('connection refused')) => handlers.onError(cause),
    };
    sockets.push(socket);
    return {
      send: (data) => void socket.sent.push(JSON.parse(data) as Record<string, unknown>),
      close: (code, reason) => void socket.closeCalls.push({ code, reason }),
    };
  };
  return {
    transport,
    sockets,
    /** The most recent socket. */
    get last(): FakeSocket {
      const socket = sockets.at(-1);
      if (!socket) throw new Error('no socket was opened');
      return socket;
    },
  };
}

export type Recorded =
  | { type: 'notify'; kind: StreamNotifyKind; version: number }
  | { type: 'connection'; connection: StreamConnectionState }
  | { type: 'error'; error: StreamError };

export interface RecordOptions {
  streamUrl?: string;
  sdkKey?: string;
  /** A socket opener (run through `createStreamConnection`), or a whole stream transport. */
  transport: SocketOpener | StreamTransport;
  scheduler?: Scheduler;
  /** Returned by `lastKnownVersion()`; change it through `setVersion`. @default 7 */
  version?: number | null;
  /** Runs inside every callback, after it was recorded (e.g. to call close() from there). */
  onCallback?: (recorded: Recorded) => void;
  /** The handshake's window, as the client passes it; none gives the stream's 30 s. */
  requestTimeout?: number;
  /** What a client sharing snapshots with its tabs passes (tab-handover.ts). */
  fetched?: () => Promise<void>;
  tabLock?: TabLock;
}

/** A stream connection whose callbacks are recorded in one ordered log. */
export function recordStream(options: RecordOptions) {
  const log: Recorded[] = [];
  let versionReads = 0;
  let version = options.version === undefined ? 7 : options.version;
  const record = (entry: Recorded) => {
    log.push(entry);
    options.onCallback?.(entry);
  };
  const { transport } = options;
  const connectOptions: StreamConnectOptions = {
    streamUrl: options.streamUrl ?? 'https://stream.flags.test',
    sdkKey: options.sdkKey ?? SDK_KEY,
    scheduler: options.scheduler ?? { ...defaultScheduler, random: () => 0 },
    lastKnownVersion: () => {
      versionReads++;
      return version;
    },
    onNotify: (kind, v) => record({ type: 'notify', kind, version: v }),
    onConnectionChange: (c) => record({ type: 'connection', connection: c }),
    onError: (error) => record({ type: 'error', error }),
    requestTimeout: options.requestTimeout,
    fetched: options.fetched,
    tabLock: options.tabLock,
  };
  const connection: StreamConnection =
    typeof transport == 'function' ? createStreamConnection({ ...connectOptions, transport }) : transport.connect(connectOptions);
  return {
    connection,
    log,
    /** How often the connection called `lastKnownVersion()`. */
    versionReads: () => versionReads,
    setVersion(next: number | null) {
      version = next;
    },
    connections: () => log.flatMap((entry) => (entry.type === 'connection' ? [entry.connection] : [])),
    errors: () => log.flatMap((entry) => (entry.type === 'error' ? [entry.error] : [])),
    notifies: () => log.flatMap((entry) => (entry.type === 'notify' ? [{ kind: entry.kind, version: entry.version }] : [])),
  };
}

/** `connected` as the reference server sends it. */
export function connectedFrame(heartbeatMs = 15_000, environmentId = 'production', version = 1) {
  return { type: 'connected', protocol: 1, environmentId, version, heartbeatMs };
}

/**
 * The platform timers (reachable by vi.useFakeTimers) with a fixed random number, and a
 * count of the timers still pending, for tests that run on real timers.
 */
export function countingScheduler(random = 0) {
  const pending = new Set<unknown>();
  const scheduler: Scheduler = {
    now: () => Date.now(),
    random: () => random,
    setTimeout(callback, ms) {
      const id = setTimeout(() => {
        pending.delete(id);
        callback();
      }, ms);
      pending.add(id);
      return id;
    },
    clearTimeout(id) {
      pending.delete(id);
      clearTimeout(id as ReturnType<typeof setTimeout>);
    },
  };
  return { scheduler, pending };
}
