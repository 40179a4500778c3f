import { WebSocket } from 'ws';
import type { ClientOptions } from 'ws';
import type { ReferenceServer } from '../../reference-server/index';
import { useServerPool } from '../helpers/reference-server';

import { DEMO } from '../helpers/reference-server';

export { DEMO };

export interface Closed {
  code: number;
  reason: string;
}

/** A real `ws` client that records every frame, so a test can await the next one. */
export class StreamClient {
  readonly messages: Array<Record<string, unknown>> = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<Closed>;
  private cursor = 0;
  private wake: (() => void) | undefined;

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.wake?.();
      });
    });
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
      this.wake?.();
    });
  }

  /** The next frame not yet consumed (optionally of one type, skipping others), or a timeout error. */
  async next(type?: string, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.messages.length) {
        const message = this.messages[this.cursor++] as Record<string, unknown>;
        if (type === undefined || message.type === type) return message;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.ws.readyState === WebSocket.CLOSED) {
        throw new Error(`no ${type ?? 'message'} frame; got ${JSON.stringify(this.messages)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /**
   * Waits until the server has processed every frame sent so far: frames are handled in
   * order, so the pong to a fresh ping proves it. The pong itself is dropped.
   */
  async barrier(timeoutMs = 5000): Promise<void> {
    const ts = -Math.random();
    this.send({ type: 'ping', ts });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.messages.findIndex((m) => m.type === 'pong' && m.ts === ts);
      if (index >= this.cursor) {
        this.messages.splice(index, 1);
        return;
      }
      if (Date.now() > deadline || this.ws.readyState === WebSocket.CLOSED) throw new Error('no pong to the barrier ping');
      await sleep(5);
    }
  }

  /** Frames received so far of one type. */
  ofType(type: string): Array<Record<string, unknown>> {
    return this.messages.filter((message) => message.type === type);
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface ConnectOptions {
  /** Offered subprotocols. @default ['flagplane.v1', `flagplane.key.${key}`] */
  protocols?: string[];
  key?: string;
  headers?: Record<string, string>;
  wsOptions?: ClientOptions;
}

/**
 * Starts servers and opens streams for one test file, and closes all of them after each
 * test, so that a failing assertion never leaks a port or a socket.
 */
export function useServers() {
  const clients: StreamClient[] = [];
  const start = useServerPool(() => {
    for (const client of clients.splice(0)) client.ws.terminate();
  });

  return {
    start,
    /** Opens `${wsUrl}/sdk/v1/stream` without waiting for the upgrade. */
    connect(server: ReferenceServer, options: ConnectOptions = {}): StreamClient {
      const key = options.key ?? DEMO.prodClientKey;
      const protocols = options.protocols ?? ['flagplane.v1', `flagplane.key.${key}`];
      const ws = new WebSocket(`${server.wsUrl}/sdk/v1/stream`, protocols, { ...options.wsOptions, headers: options.headers });
      const client = new StreamClient(ws);
      clients.push(client);
      return client;
    },
    /** Connects, waits for `connected`, subscribes, and waits until the server has the subscription. */
    async subscribe(server: ReferenceServer, key: string, environmentId: string, lastKnownVersion: number | null): Promise<StreamClient> {
      const client = this.connect(server, { key });
      await client.next('connected');
      client.send({ type: 'subscribe', environmentId, lastKnownVersion });
      await client.barrier();
      return client;
    },
  };
}

export interface FetchOptions {
  key?: string | null;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent as is, instead of `JSON.stringify(body)`. */
  rawBody?: string;
}

/** fetch against the server with `Authorization: Bearer <key>` and a JSON body. */
export function call(server: ReferenceServer, path: string, options: FetchOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? DEMO.prodServerKey}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  return fetch(`${server.baseUrl}${path}`, { method: options.method ?? 'GET', headers: { ...headers, ...options.headers }, body });
}

export function admin(server: ReferenceServer, method: string, path: string, body?: unknown): Promise<Response> {
  return call(server, `/admin/v1${path}`, { key: server.adminToken, method, body });
}

/** Asserts the one error shape and returns it. */
export async function errorOf(response: Response): Promise<{ code: string; message: string; path?: string }> {
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/json')) throw new Error(`error response has content-type ${contentType}`);
  const body = (await response.json()) as { error?: { code: string; message: string; path?: string } };
  if (!body.error || typeof body.error.code !== 'string' || typeof body.error.message !== 'string' || body.error.message === '') {
    throw new Error(`not the error shape: ${JSON.stringify(body)}`);
  }
  const extra = Object.keys(body.error).filter((k) => !['code', 'message', 'path'].includes(k));
  if (Object.keys(body).length !== 1 || extra.length > 0) throw new Error(`extra members in ${JSON.stringify(body)}`);
  return body.error;
}

export const NOW = () => new Date().toISOString();

/** An empty schema-1 snapshot to publish. */
export const empty = { schemaVersion: 1, flags: {} };

/** An `evaluation` event of flag `key`. */
export const evaluation = (key = 'new-checkout') => ({ type: 'evaluation', key, reason: 'FALLTHROUGH', value: true, userId: 'u-1' });
