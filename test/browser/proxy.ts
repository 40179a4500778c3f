import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { closeServer, listenOnLoopback } from './net';

/** One request the proxy saw. `status` is `null` until the answer is sent (or forever, if the browser gave up first). */
export interface ProxiedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** The query string, `?` included, or ''. */
  query: string;
  headers: IncomingHttpHeaders;
  status: number | null;
  /** The answer's headers as the server sent them, once they arrived. */
  answerHeaders: IncomingHttpHeaders | null;
  /** Date.now() when it arrived, and when its answer was sent. */
  at: number;
  answeredAt: number | null;
  /** Held by a `hold()` before being forwarded. */
  held: boolean;
  /** The browser closed the connection before the answer was sent. */
  aborted: boolean;
}

/** Requests held back by {@link CountingProxy.hold}, forwarded on `release()`. */
export interface Hold {
  /** How many requests are waiting now. */
  readonly waiting: number;
  /** Forwards the waiting requests and stops holding. */
  release(): void;
}

export interface CountingProxy {
  readonly baseUrl: string;
  readonly port: number;
  /** Every request, in arrival order. */
  readonly requests: ProxiedRequest[];
  /** Delays every request matching `predicate` until the hold is released (or the proxy closed). */
  hold(predicate: (request: ProxiedRequest) => boolean): Hold;
  /** Forgets the recorded requests (a test's own count starts here). */
  clear(): void;
  close(): Promise<void>;
}

// Per-connection headers (RFC 9110 §7.6.1): not forwarded, in either direction.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function endToEnd(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
  return kept;
}

/**
 * A node:http proxy in front of `target` (`http://host:port`): forwards each request's
 * method, path, query, headers and body, pipes the answer back unchanged, and records it.
 * Only HTTP: the WebSocket stream goes to the reference server directly.
 */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const requests: ProxiedRequest[] = [];
  const holds = new Set<{ predicate: (request: ProxiedRequest) => boolean; waiting: Array<() => void> }>();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy.test');
    const record: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      headers: req.headers,
      status: null,
      answerHeaders: null,
      at: Date.now(),
      answeredAt: null,
      held: false,
      aborted: false,
    };
    requests.push(record);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const forward = () => {
      if (res.destroyed) return;
      const outgoing = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: endToEnd(req.rawHeaders), agent },
        (answer) => {
          record.answerHeaders = answer.headers;
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
          answer.pipe(res);
          answer.on('end', () => {
            record.status = answer.statusCode ?? 502;
            record.answeredAt = Date.now();
          });
        },
      );
      outgoing.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('proxy: upstream failed');
        record.status ??= 502;
      });
      // The browser gave up (navigation, tab closed): so does the proxy.
      res.on('close', () => {
        if (!res.writableFinished) outgoing.destroy();
      });
      outgoing.end(Buffer.concat(chunks));
    };
    req.on('end', () => {
      const hold = [...holds].find((candidate) => candidate.predicate(record));
      if (!hold) return forward();
      record.held = true;
      hold.waiting.push(forward);
    });
  });
  const port = await listenOnLoopback(server);

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    hold(predicate) {
      const hold = { predicate, waiting: [] as Array<() => void> };
      holds.add(hold);
      return {
        get waiting() {
          return hold.waiting.length;
        },
        release() {
          holds.delete(hold);
          hold.waiting.splice(0).forEach((forward) => forward());
        },
      };
    },
    clear() {
      requests.length = 0;
    },
    async close() {
      // Held requests are dropped with their connections.
      for (const hold of holds) hold.waiting.length = 0;
      holds.clear();
      await closeServer(server);
      agent.destroy();
    },
  };
}
