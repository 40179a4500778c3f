/**
 * Runs inside Hermes: what React Native's native modules give an app, with Node as the native
 * side. As in React Native, timers and WebSockets are JavaScript objects over a host that arms
 * the real timer and holds the real socket (RN's JSTimers over its Timing module, its WebSocket
 * class over WebSocketModule): here Hermes prints one `@@{json}` line per call and Node answers
 * with a line of JavaScript on stdin (test/runtimes/hermes-bridge.ts). The app supplies HTTP
 * as the client's `transport`; AbortController and TextEncoder are small polyfills, as on
 * React Native before 0.74. There is no URL: the client does without (docs/runtimes.md).
 */
import type { HttpResult, HttpTransport } from '../../../src/http/http-types';

declare const print: (...parts: unknown[]) => void;
type Native = Record<string, unknown>;
const host = globalThis as unknown as Record<string, unknown>;

/** One line to the host. */
export const send = (message: Native) => print(`@@${JSON.stringify(message)}`);

let lastId = 0;
const timers = new Map<number, () => void>();
const requests = new Map<number, (result: HttpResult) => void>();
const sockets = new Map<number, BridgeWebSocket>();

host.setTimeout = (callback: () => void, ms = 0) => {
  const id = ++lastId;
  timers.set(id, callback);
  send({ t: 'timer', id, ms });
  return id;
};
host.clearTimeout = (id: number) => {
  if (timers.delete(id)) send({ t: 'clear', id });
};

const say = (level: string) => (...parts: unknown[]) => send({ t: 'log', level, text: parts.map(String).join(' ') });
host.console = { log: say('log'), info: say('info'), warn: say('warn'), error: say('error'), debug: say('debug') };

class BridgeSignal {
  aborted = false;
  reason: unknown;
  onabort: (() => void) | null = null;
  private listeners: Array<() => void> = [];
  addEventListener(_type: string, listener: () => void) {
    this.listeners.push(listener);
  }
  removeEventListener(_type: string, listener: () => void) {
    this.listeners = this.listeners.filter((each) => each !== listener);
  }
  dispatch() {
    for (const listener of this.listeners.slice()) listener();
    this.onabort?.();
  }
}
host.AbortController = class {
  signal = new BridgeSignal();
  abort(reason?: unknown) {
    if (this.signal.aborted) return;
    this.signal.aborted = true;
    this.signal.reason = reason ?? new Error('AbortError');
    this.signal.dispatch();
  }
};

/** UTF-8, a lone surrogate as U+FFFD, as the platform's TextEncoder. */
host.TextEncoder = class {
  encodeInto(text: string, bytes: Uint8Array) {
    let written = 0;
    const put = (byte: number) => (bytes[written++] = byte);
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i);
      const next = text.charCodeAt(i + 1);
      if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
      // Leading byte, then 6 bits per continuation byte.
      const tail = code < 0x80 ? 0 : code < 0x800 ? 1 : code < 0x10000 ? 2 : 3;
      put(tail === 0 ? code : ((0xf00 >> (tail + 1)) & 0xff) | (code >> (6 * tail)));
      for (let shift = 6 * (tail - 1); shift >= 0; shift -= 6) put(0x80 | ((code >> shift) & 63));
    }
    return { read: text.length, written };
  }
};

class BridgeWebSocket {
  readyState = 0;
  onopen: ((event: Native) => void) | null = null;
  onmessage: ((event: Native) => void) | null = null;
  onclose: ((event: Native) => void) | null = null;
  onerror: ((event: Native) => void) | null = null;
  readonly id = ++lastId;
  constructor(url: string, protocols?: string | string[]) {
    sockets.set(this.id, this);
    send({ t: 'ws-open', id: this.id, url, protocols: protocols ?? [] });
  }
  send(data: string) {
    send({ t: 'ws-send', id: this.id, data });
  }
  close(code?: number, reason?: string) {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    send({ t: 'ws-close', id: this.id, code, reason });
  }
}
host.WebSocket = BridgeWebSocket;

/** The app's HTTP transport: the host makes the request. */
export const bridgeTransport: HttpTransport = (request) =>
  new Promise((resolve) => {
    if (request.signal.aborted) return resolve({ kind: 'aborted' });
    const id = ++lastId;
    const onAbort = () => {
      requests.delete(id);
      send({ t: 'abort', id });
      resolve({ kind: 'aborted' });
    };
    request.signal.addEventListener('abort', onAbort);
    requests.set(id, (result) => {
      requests.delete(id);
      request.signal.removeEventListener('abort', onAbort);
      resolve(result);
    });
    send({ t: 'http', id, method: request.method, url: request.url, headers: request.headers, body: request.body });
  });

/** What the host calls, one line each. */
host.__native = {
  fire(id: number) {
    const callback = timers.get(id);
    timers.delete(id);
    callback?.();
  },
  http(id: number, status: number, headers: Record<string, string>, body: string) {
    requests.get(id)?.({ kind: 'response', status, body, header: (name) => headers[name.toLowerCase()] ?? null });
  },
  httpFailed(id: number, message: string) {
    requests.get(id)?.({ kind: 'network-error', cause: new Error(message) });
  },
  ws(id: number, type: 'open' | 'message' | 'close' | 'error', data?: string, code?: number, reason?: string) {
    const socket = sockets.get(id);
    if (!socket) return;
    if (type === 'open') socket.readyState = 1;
    if (type === 'close') (socket.readyState = 3), sockets.delete(id);
    const handler = socket[`on${type}`];
    handler?.({ type, data, code, reason });
  },
  /** What is still alive on this side: nothing, after close(). */
  pending: () => send({ t: 'pending', timers: timers.size, requests: requests.size, sockets: sockets.size }),
};
