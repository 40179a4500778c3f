// The clients of `npm run bench:fanout` (scripts/bench-fanout.mjs): light stream clients, many
// per child process. Each speaks the stream protocol over a raw `ws` socket (connected →
// subscribe, pong to ping) and, on `snapshot.updated` or `snapshot.resync`, refetches
// GET /sdk/v1/snapshot with If-None-Match and Flagplane-Min-Version over a keep-alive
// connection of a small hand-written HTTP/1.1 pool (node:http's client would cost more CPU
// than the server it measures); in a notify-only round they do not refetch. Per announced version it reports to the coordinator when each
// client heard it and when each refetch was answered.
import { connect } from 'node:net';
import { WebSocket } from 'ws';

const now = () => performance.timeOrigin + performance.now();
const OPENING_AT_ONCE = 100;

/** A keep-alive HTTP/1.1 pool of at most `size` connections, one request in flight on each. */
function createHttpPool(port, size) {
  const idle = [];
  const waiting = [];
  let open = 0;

  function onData(conn, chunk) {
    conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk]);
    const headEnd = conn.buffer.indexOf('\r\n\r\n');
    if (headEnd === -1) return;
    const head = conn.buffer.subarray(0, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (conn.buffer.length < headEnd + 4 + length) return;
    conn.buffer = conn.buffer.subarray(headEnd + 4 + length);
    const status = Number(head.slice(9, 12));
    const etag = /\r\netag: *("[^"]*")/i.exec(head)?.[1];
    const done = conn.done;
    conn.done = undefined;
    release(conn);
    done({ status, etag, bodyBytes: length });
  }

  function release(conn) {
    const next = waiting.shift();
    if (next) run(conn, next);
    else idle.push(conn);
  }

  function run(conn, { text, resolve }) {
    conn.done = resolve;
    conn.text = text;
    conn.socket.write(text);
  }

  // The server closes a keep-alive connection idle for 5 s (node:http's keepAliveTimeout): as a
  // browser does, a request caught on one is sent again on a new connection.
  function openConnection(job) {
    open += 1;
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const conn = { socket, buffer: Buffer.alloc(0), done: undefined, text: undefined };
    socket.on('data', (chunk) => onData(conn, chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      open -= 1;
      const at = idle.indexOf(conn);
      if (at !== -1) idle.splice(at, 1);
      if (conn.done) pool.get(conn.text).then(conn.done);
      else if (waiting.length > 0) openConnection(waiting.shift());
    });
    socket.once('connect', () => run(conn, job));
  }

  const pool = {
    get(text) {
      return new Promise((resolve) => {
        const job = { text, resolve };
        const conn = idle.pop();
        if (conn) run(conn, job);
        else if (open < size) openConnection(job);
        else waiting.push(job);
      });
    },
    close() {
      for (const conn of idle) conn.socket.destroy();
    },
  };
  return pool;
}

/** The clients of one server: `count` streams, their refetches, and the per-version record. */
async function openTarget({ name, port, key, count, httpSockets }) {
  const pool = createHttpPool(port, httpSockets);
  const versionOf = (etag) => Number(/snapshot-(\d+)/.exec(etag ?? '')?.[1] ?? -1);
  const rounds = new Map();
  const tally = { duplicates: 0, stale: 0, ok: 0, notModified: 0 };
  const roundOf = (version) => {
    let round = rounds.get(version);
    if (!round) rounds.set(version, (round = { notified: [], refetched: [] }));
    return round;
  };
  let holding = 0;
  let resolveAllHolding;
  const allHolding = new Promise((resolve) => (resolveAllHolding = resolve));

  const request = (client, version) =>
    `GET /sdk/v1/snapshot HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
    `${client.etag ? `If-None-Match: ${client.etag}\r\n` : ''}Flagplane-Min-Version: ${version}\r\n\r\n`;

  async function refetch(client, version) {
    const answer = await pool.get(request(client, version));
    if (answer.status === 200) tally.ok += 1;
    else if (answer.status === 304) tally.notModified += 1;
    else throw new Error(`${name}: snapshot answered ${answer.status}`);
    client.etag = answer.etag;
    const served = versionOf(answer.etag);
    if (served < version) {
      tally.stale += 1;
      setTimeout(() => refetch(client, version), 250);
      return;
    }
    const first = client.version === 0;
    client.version = served;
    if (first) {
      holding += 1;
      if (holding === count) resolveAllHolding();
      return;
    }
    const round = roundOf(version);
    round.refetched.push(now());
    if (round.refetched.length === count) {
      rounds.delete(version);
      process.send({ type: 'round', target: name, version, notified: round.notified, refetched: round.refetched });
    }
  }

  function onFrame(client, data) {
    const message = JSON.parse(String(data));
    if (message.type === 'connected') {
      client.ws.send(JSON.stringify({ type: 'subscribe', environmentId: message.environmentId, lastKnownVersion: client.version || null }));
    } else if (message.type === 'ping') {
      client.ws.send(JSON.stringify({ type: 'pong', ts: message.ts }));
    } else if (message.type === 'snapshot.updated' || message.type === 'snapshot.resync') {
      if (message.version <= client.heard) tally.duplicates += 1;
      client.heard = message.version;
      if (client.version === 0 || mode.refetch) {
        if (client.version !== 0) roundOf(message.version).notified.push(now());
        refetch(client, message.version);
        return;
      }
      const round = roundOf(message.version);
      round.notified.push(now());
      if (round.notified.length === count) {
        rounds.delete(message.version);
        process.send({ type: 'round', target: name, version: message.version, notified: round.notified, refetched: [] });
      }
    }
  }

  function openClient() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/sdk/v1/stream`, ['flagplane.v1', `flagplane.key.${key}`], { perMessageDeflate: false });
      const client = { ws, etag: undefined, version: 0, heard: 0 };
      ws.on('message', (data) => onFrame(client, data));
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`${name}: stream handshake answered ${res.statusCode}`)));
    });
  }

  const clients = [];
  for (let i = 0; i < count; i += OPENING_AT_ONCE) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(OPENING_AT_ONCE, count - i) }, openClient))));
  }
  await allHolding;
  return {
    tally,
    close: () => {
      for (const client of clients) client.ws.terminate();
      pool.close();
    },
  };
}

/** Whether a notification is followed by a refetch (a round can measure the notifications alone). */
const mode = { refetch: true };
const targets = new Map();
process.on('unhandledRejection', (error) => {
  console.error('fanout-clients:', error);
  process.exit(1);
});
process.on('message', async (message) => {
  if (message.type === 'open') {
    targets.set(message.name, await openTarget(message));
    process.send({ type: 'opened', target: message.name });
  } else if (message.type === 'mode') {
    mode.refetch = message.refetch;
    process.send({ type: 'mode' });
  } else if (message.type === 'tally') {
    process.send({ type: 'tally', tallies: Object.fromEntries([...targets].map(([name, target]) => [name, target.tally])) });
  } else if (message.type === 'stop') {
    for (const target of targets.values()) target.close();
    process.exit(0);
  }
});
// Gone with the coordinator, whatever it died of.
process.on('disconnect', () => process.exit(0));
