// What an idle console costs the server: `npm run bench:console [-- seconds]` (10 by default).
// One reference server whose production environment holds 1,000 flags; in front of it a TCP
// proxy counting the requests that pass and the bytes the server sends back. Two consoles, one
// after the other, in this run: the console's own client code (reference-server/console/:
// its reads and its change feed, as the page runs them), then the polling the console did
// before the feed (every snapshot, the keys and the event lists each second). Each first
// loads, then idles for the given seconds; the figures are the idle part. It reports and never fails.
import { build } from 'esbuild';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdir, writeFile } from 'node:fs/promises';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const IDLE_MS = Number(process.argv[2] ?? 10) * 1000;
const FLAGS = 1000;

/** The server and the console's client code, bundled from the sources. */
async function load() {
  const entry = `
    export { startReferenceServer } from './reference-server/index';
    export { createAdminApi } from './reference-server/console/api';
    export { createAdminReads, EVENT_LIMIT } from './reference-server/console/admin-reads';
    export { followChanges } from './reference-server/console/change-feed';
  `;
  const result = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const dir = join(ROOT, 'node_modules', '.cache', 'flagplane-bench');
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'bench-console.mjs');
  await writeFile(file, result.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

/** A TCP proxy to `port` counting request lines (client → server) and bytes (server → client). */
function countingProxy(port) {
  const counts = { requests: [], bytes: 0 };
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = createConnection(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk) => {
      for (const [, method, path] of chunk.toString('latin1').matchAll(/^(GET|POST|PUT|PATCH|DELETE) (\S+) HTTP\/1\.1\r$/gm)) counts.requests.push(`${method} ${path}`);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      counts.bytes += chunk.length;
      client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: `http://127.0.0.1:${server.address().port}`,
        counts,
        /** What passed since the last mark. */
        mark() {
          const since = { requests: counts.requests.splice(0), bytes: counts.bytes };
          counts.bytes = 0;
          return since;
        },
        close: () => {
          for (const socket of sockets) socket.destroy();
          return new Promise((done) => server.close(() => done()));
        },
      }),
    ),
  );
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The console as it is: read once when the feed opens, then only what a change names. */
async function followingConsole(kit, origin, token) {
  const api = kit.createAdminApi(token, origin);
  const controller = new AbortController();
  let data = {};
  let ready;
  const loaded = new Promise((resolve) => (ready = resolve));
  const reads = kit.createAdminReads(api, () => 'production', (change) => (data = change(data)), controller.signal);
  const stop = kit.followChanges({
    origin,
    token,
    onReady: () => void reads.all().then(ready),
    onChange: () => undefined,
    onConnection: () => undefined,
    onRefused: (error) => console.error(error),
  });
  await loaded;
  return () => {
    stop();
    controller.abort();
  };
}

/** The console before the feed: every snapshot, the keys and the event lists, each second. */
async function pollingConsole(kit, origin, token) {
  const api = kit.createAdminApi(token, origin);
  let stopped = false;
  let timer;
  const poll = async () => {
    const environments = await api.environments();
    await Promise.all([api.keys(), api.diagnostics(kit.EVENT_LIMIT), api.analytics(kit.EVENT_LIMIT)]);
    await api.identifyQueue(environments[0].id, kit.EVENT_LIMIT);
  };
  const loop = async () => {
    await poll();
    if (!stopped) timer = setTimeout(loop, 1000);
  };
  await loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function flagsOf(count) {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `flag-${String(i).padStart(4, '0')}`,
      { on: i % 2 === 0, clientSide: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: `s${i}` },
    ]),
  );
}

async function measure(kit, server, name, open) {
  const proxy = await countingProxy(server.port);
  const stop = await open(kit, proxy.origin, server.adminToken);
  const load = proxy.mark();
  await sleep(IDLE_MS);
  const idle = proxy.mark();
  stop();
  await proxy.close();
  return { name, load, idle };
}

const kit = await load();
const server = await kit.startReferenceServer({ port: 0 });
await server.publish('production', { schemaVersion: 1, flags: flagsOf(FLAGS) });
const results = [];
try {
  results.push(await measure(kit, server, 'change feed (the console)', followingConsole));
  results.push(await measure(kit, server, 'polling each second (before)', pollingConsole));
} finally {
  await server.close();
}

const kib = (bytes) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
console.log(`${FLAGS} flags in production; idle for ${IDLE_MS / 1000} s after the first load; bytes are what the server sent\n`);
console.log(['console'.padEnd(30), 'load: requests'.padStart(15), 'bytes'.padStart(11), 'idle: requests'.padStart(15), 'bytes'.padStart(11)].join(''));
for (const { name, load, idle } of results) {
  console.log([name.padEnd(30), String(load.requests.length).padStart(15), kib(load.bytes).padStart(11), String(idle.requests.length).padStart(15), kib(idle.bytes).padStart(11)].join(''));
}
const [feed] = results;
console.log(`\nthe feed's idle requests: ${JSON.stringify(feed.idle.requests)}; its idle bytes are heartbeat comments (18 bytes on the wire every 20 s)`);
