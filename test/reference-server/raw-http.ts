// Raw HTTP/1.1 over a TCP socket, for requests fetch() cannot send (no Host, bad bytes, stalls).
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, expect } from 'vitest';
import type { ReferenceServer } from '../../reference-server/index';
import { DEMO } from './helpers';

/** Raw sockets a test opened; destroyed after each test so a server's close() is never held up by one. */
const rawSockets: Socket[] = [];
afterEach(() => {
  for (const socket of rawSockets.splice(0)) socket.destroy();
});

export function openRaw(server: ReferenceServer): Socket {
  const socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => undefined);
  rawSockets.push(socket);
  return socket;
}

/** Writes raw bytes and resolves with everything the server sent once it closes the socket. */
export function rawExchange(server: ReferenceServer, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = openRaw(server);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
    socket.write(bytes);
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits every response in a raw HTTP/1.1 byte stream (Content-Length framed, as this server writes). */
export function parseResponses(raw: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) break;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    responses.push({ status: Number(statusLine?.split(' ')[1]), headers, body: rest.slice(bodyStart, bodyStart + length) });
    rest = rest.slice(bodyStart + length);
  }
  return responses;
}

/** Asserts the one error shape of protocol.md §5 on a raw response and returns the error. */
export function rawErrorOf(response: RawResponse | undefined): { code: string; message: string; path?: string } {
  if (!response) throw new Error('no response');
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const parsed = JSON.parse(response.body) as { error: { code: string; message: string; path?: string } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(typeof parsed.error.code).toBe('string');
  expect(parsed.error.message.length).toBeGreaterThan(0);
  return parsed.error;
}

/** Everything the server sends on `socket`, once it closes the connection. */
export function received(socket: Socket): Promise<string> {
  let raw = '';
  socket.on('data', (chunk) => (raw += chunk.toString()));
  return new Promise((resolve) => socket.on('close', () => resolve(raw)));
}

const WS_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

/** A WebSocket upgrade request for `path` with the demo client key, as raw bytes; an empty header value leaves the header out. */
export function upgradeRequest(path: string, headers: Record<string, string> = {}, method = 'GET'): string {
  const all: Record<string, string> = {
    Host: 'localhost',
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': WS_KEY,
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Protocol': `flagplane.v1, flagplane.key.${DEMO.prodClientKey}`,
    ...headers,
  };
  const lines = Object.entries(all)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** A raw GET /sdk/v1/snapshot with `extraHeaders`. */
export function snapshotRequest(extraHeaders: string[] = [], connection = 'close'): string {
  return ['GET /sdk/v1/snapshot HTTP/1.1', 'Host: localhost', `Connection: ${connection}`, ...extraHeaders].join('\r\n') + '\r\n\r\n';
}
