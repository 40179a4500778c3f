/**
 * A node:http proxy in front of a data plane that breaks one behaviour: HTTP requests and
 * answers, and stream frames, subprotocols and close codes, each through an optional hook.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface ProxiedAnswer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: string;
}

/** What one stream connection has seen, for hooks that answer differently by state. */
export interface StreamState {
  connectedVersion?: number;
  environmentId?: string;
  /** Sends a frame to the client as if the server had. */
  toClient(frame: unknown): void;
}

export interface Breakage {
  /** Changes the request before it goes on (its headers may be edited in place). */
  request?(request: ProxiedRequest): void;
  /** Changes the answer; 'hang' never answers. */
  answer?(request: ProxiedRequest, answer: ProxiedAnswer): ProxiedAnswer | 'hang';
  /** The subprotocols offered upstream, from those the client offered. */
  offer?(offered: string[]): string[];
  /** The subprotocol selected for the client, from the one the server selected. */
  select?(offered: string[], selected: string): string | false;
  /** A frame on its way to the client; null drops it. */
  fromServer?(frame: Record<string, unknown>, state: StreamState): Record<string, unknown> | null;
  /** A frame on its way to the server; null drops it. */
  fromClient?(text: string, state: StreamState): string | null;
  /** The close code passed on to the client. */
  closeCode?(code: number): number;
}

export interface BreakingProxy {
  baseUrl: string;
  wsUrl: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'transfer-encoding', 'keep-alive', 'content-length']);

function forwardHttp(upstream: URL, breakage: Breakage, req: IncomingMessage, body: Buffer): Promise<ProxiedAnswer | 'hang'> {
  const proxied: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers, host: upstream.host } };
  breakage.request?.(proxied);
  return new Promise<ProxiedAnswer>((resolve, reject) => {
    const outgoing = httpRequest(new URL(proxied.url, upstream), { method: proxied.method, headers: proxied.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        resolve({ status: response.statusCode ?? 502, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body.length > 0 ? body : undefined);
  }).then((answer) => (breakage.answer ? breakage.answer(proxied, answer) : answer));
}

function relayStream(upstreamWs: URL, breakage: Breakage, wss: WebSocketServer, sockets: Set<WebSocket>, req: IncomingMessage, socket: Duplex, head: Buffer) {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  const headers = req.headers.authorization ? { authorization: req.headers.authorization } : {};
  const server = new WebSocket(new URL(req.url ?? '/', upstreamWs), breakage.offer?.(offered) ?? offered, { headers });
  sockets.add(server);
  const pending: Array<() => void> = [];
  let client: WebSocket | undefined;
  const state: StreamState = { toClient: (frame) => client?.send(JSON.stringify(frame)) };
  const later = (action: () => void) => (client ? action() : pending.push(action));
  server.on('error', () => socket.destroy());
  server.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    if (frame.type === 'connected') Object.assign(state, { connectedVersion: frame.version, environmentId: frame.environmentId });
    const passed = breakage.fromServer ? breakage.fromServer(frame, state) : frame;
    if (passed) later(() => client!.send(JSON.stringify(passed)));
  });
  server.on('close', (code, reason) =>
    later(() => (code === 1005 || code === 1006 ? client!.terminate() : client!.close(breakage.closeCode?.(code) ?? code, reason))),
  );
  server.on('open', () => {
    (req as IncomingMessage & { selected?: string | false }).selected = breakage.select ? breakage.select(offered, server.protocol) : server.protocol || false;
    wss.handleUpgrade(req, socket, head, (ws) => {
      client = ws;
      sockets.add(ws);
      ws.on('message', (data, isBinary) => {
        const text = data.toString();
        const passed = isBinary ? text : breakage.fromClient ? breakage.fromClient(text, state) : text;
        if (passed !== null && server.readyState === WebSocket.OPEN) server.send(passed);
      });
      ws.on('close', () => server.terminate());
      for (const action of pending.splice(0)) action();
    });
  });
}

/** Starts a proxy on port 0 in front of `upstreamBase` (HTTP and the stream on one port). */
export async function startBreakingProxy(upstreamBase: string, breakage: Breakage = {}): Promise<BreakingProxy> {
  const upstream = new URL(upstreamBase);
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (_protocols, req) => (req as IncomingMessage & { selected?: string | false }).selected ?? false,
  });
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      forwardHttp(upstream, breakage, req, Buffer.concat(chunks)).then(
        (answer) => {
          if (answer === 'hang') return;
          res.writeHead(answer.status, answer.headers);
          res.end(answer.status === 304 ? undefined : answer.body);
        },
        () => res.destroy(),
      );
    });
  });
  http.on('upgrade', (req, socket, head) => relayStream(new URL(upstream.href.replace(/^http/, 'ws')), breakage, wss, sockets, req, socket, head));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
