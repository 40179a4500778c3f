import type { WebSocket as WsSocket } from 'ws';
import { loadOptionalPackage } from '../../reference-server/stores/optional-package';
import { fail } from './expect';
import { ProbeTimeoutError } from './errors';

type WsModule = typeof import('ws');

export interface Closed {
  code: number;
  reason: string;
}

export interface StreamOpen {
  protocols: string[];
  headers?: Record<string, string>;
  timeoutMs: number;
}

/** Waits for `promise` at most `timeoutMs`; `what` names it in the timeout error. */
function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeoutError(what, timeoutMs)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One stream connection: its frames in order, and its close. */
export class StreamProbe {
  private readonly frames: unknown[] = [];
  private wake: () => void = () => undefined;
  readonly closed: Promise<Closed>;

  private constructor(
    private readonly ws: WsSocket,
    private readonly timeoutMs: number,
  ) {
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    void this.closed.then(() => this.wake());
    ws.on('message', (data, isBinary) => {
      this.frames.push(isBinary ? { binary: true } : parseFrame(data.toString()));
      this.wake();
    });
  }

  /** Opens a connection: resolves once the upgrade completed, rejects when it is refused or hangs. */
  static async open(url: string, options: StreamOpen): Promise<StreamProbe> {
    const { WebSocket } = await loadOptionalPackage<WsModule>('--stream-url', 'ws');
    const ws = new WebSocket(url, options.protocols, { headers: options.headers ?? {} });
    ws.on('error', () => undefined);
    const probe = new StreamProbe(ws, options.timeoutMs);
    const opened = new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('close', (code) => reject(new Error(`closed with ${code} before the upgrade completed`)));
    });
    try {
      await within(opened, options.timeoutMs, `the stream's upgrade`);
    } catch (error) {
      ws.terminate();
      throw error;
    }
    return probe;
  }

  /** The subprotocol the server selected ('' for none). */
  get protocol(): string {
    return this.ws.protocol;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /**
   * The next frame, which must be a JSON object; a close or the timeout fails the check. The
   * server's heartbeat `ping` may come at any time: it is answered, as a client does, and skipped.
   */
  async next(what: string): Promise<Record<string, unknown>> {
    for (;;) {
      const frame = await this.nextFrame(what);
      if (frame.type !== 'ping' || typeof frame.ts !== 'number') return frame;
      this.send({ type: 'pong', ts: frame.ts });
    }
  }

  private async nextFrame(what: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + this.timeoutMs;
    while (this.frames.length === 0) {
      if (this.ws.readyState === this.ws.CLOSED) {
        const { code, reason } = await this.closed;
        fail(`${what}: the stream closed with ${code}${reason ? ` "${reason}"` : ''}`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new ProbeTimeoutError(what, this.timeoutMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const frame = this.frames.shift();
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) fail(`${what}: a frame that is not a JSON object: ${JSON.stringify(frame)}`);
    return frame as Record<string, unknown>;
  }

  /** The close, which must come within `timeoutMs` (the probe's timeout by default). */
  closedWithin(what: string, timeoutMs = this.timeoutMs): Promise<Closed> {
    return within(this.closed, timeoutMs, what);
  }

  close(): void {
    this.ws.terminate();
  }
}

function parseFrame(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return `(not JSON) ${text.slice(0, 80)}`;
  }
}
