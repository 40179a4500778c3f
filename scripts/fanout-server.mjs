// The server side of `npm run bench:fanout` (scripts/bench-fanout.mjs), one child process per
// server: the reference server, or the baseline (a bare `ws` server broadcasting the same
// message, and a bare node:http handler answering the same snapshot bytes). It measures its own
// event loop (a timer-lag probe) and memory, and answers the coordinator over IPC.
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { loadBundledServer } from './server-kit.mjs';

const ENVIRONMENT = 'production';
// Every bench client connects from 127.0.0.1: the per-address stream limit (500) is off; the
// total cap stays at its default of 10,000.
const LIMITS = { streamsPerAddress: 0 };
const now = () => performance.timeOrigin + performance.now();

/** Twenty client-side flags, a few KiB of JSON: the body every refetch carries. */
export function benchSnapshot(round) {
  const flags = {};
  for (let i = 0; i < 20; i++) {
    flags[`flag-${i}`] = {
      on: true,
      variations: ['control', 'treatment'],
      offVariation: 0,
      rules: [{ id: 'staff', conditions: [{ kind: 'attribute', attribute: 'email', op: 'endsWith', values: ['@example.com'] }], serve: { variation: 1 } }],
      fallthrough: { rollout: [{ variation: 0, weight: 50000 + round }, { variation: 1, weight: 50000 - round }] },
      salt: `flag-${i}`,
      clientSide: true,
    };
  }
  return { schemaVersion: 1, environmentId: ENVIRONMENT, flags };
}

async function startReference() {
  const { startReferenceServer } = await loadBundledServer();
  const server = await startReferenceServer({ port: 0, limits: LIMITS });
  await server.publish(ENVIRONMENT, benchSnapshot(0));
  const key = await server.createKey(ENVIRONMENT, 'client');
  return {
    port: server.port,
    key,
    publish: async (round) => (await server.publish(ENVIRONMENT, benchSnapshot(round))).version,
    streams: () => server.stores.evictions.streamsRefused,
  };
}

/** What a server with no limits, no routing and no auth does: the floor under the reference server. */
async function startBare() {
  let version = 1;
  let body = Buffer.from(JSON.stringify({ ...benchSnapshot(0), version }));
  let etag = `"snapshot-${version}"`;
  const headers = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'ETag', 'Cache-Control': 'no-cache', Vary: 'Authorization' };
  const http = createServer((req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { ...headers, ETag: etag });
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, ETag: etag, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.length) });
    res.end(body);
  });
  const wss = new WebSocketServer({ server: http, handleProtocols: (offered) => (offered.has('flagplane.v1') ? 'flagplane.v1' : false) });
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === 'subscribe') ws.send(JSON.stringify({ type: 'snapshot.resync', environmentId: ENVIRONMENT, version, reason: 'unknown-version' }));
    });
    ws.send(JSON.stringify({ type: 'connected', protocol: 1, environmentId: ENVIRONMENT, version, heartbeatMs: 15000 }));
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: http.address().port,
    key: 'svc_sdk_client_bare_baseline',
    publish: async (round) => {
      version += 1;
      body = Buffer.from(JSON.stringify({ ...benchSnapshot(round), version }));
      etag = `"snapshot-${version}"`;
      const message = JSON.stringify({ type: 'snapshot.updated', environmentId: ENVIRONMENT, version });
      for (const ws of wss.clients) ws.send(message);
      return version;
    },
    streams: () => 0,
  };
}

const kind = process.argv[3];
const target = kind === 'reference' ? await startReference() : await startBare();
/**
 * How long the loop was held up: a 1 ms timer that fires late was held up by whatever ran in
 * between (a callback, or one poll phase's worth of socket callbacks), or by the process not
 * being scheduled at all on a busy machine. The CPU time the process used over that interval
 * tells the two apart: `busy` is the most CPU used between two ticks.
 */
function startLagProbe() {
  let lag = 0;
  let busy = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const tick = () => {
    const at = performance.now();
    const cpu = process.cpuUsage();
    lag = Math.max(lag, at - last - 1);
    busy = Math.max(busy, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
    last = at;
    lastCpu = cpu;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  return {
    reset: () => {
      lag = 0;
      busy = 0;
    },
    read: () => ({ lagMs: lag, busyMs: busy }),
  };
}

const probe = startLagProbe();
process.send({ type: 'ready', port: target.port, key: target.key });
process.on('message', async (message) => {
  if (message.type === 'publish') {
    probe.reset();
    const t0 = now();
    const version = await target.publish(message.round);
    process.send({ type: 'published', t0, version });
  } else if (message.type === 'stats') {
    process.send({ type: 'stats', rss: process.memoryUsage().rss, ...probe.read(), refused: target.streams() });
  } else if (message.type === 'stop') {
    process.exit(0);
  }
});
// Gone with the coordinator, whatever it died of.
process.on('disconnect', () => process.exit(0));
