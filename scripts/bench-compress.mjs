// npm run bench:compress — compressed snapshots at 10,000 flags (five rules each: country `in`
// rules and 50/50 rollouts, varied per flag). Prints the bytes each coding sends, the time of the
// one compression per version, what that compression costs the event loop, and the requests
// a second of the compressed route next to a bare node:http server sending the same
// pre-compressed bytes with the same headers (autocannon, 50 connections, rounds alternating,
// medians). It reports and never fails.
//
//   npm run bench:compress                  # 10,000 flags, 3 rounds of 5 s
//   node scripts/bench-compress.mjs 2 3 1000 # 2 rounds of 3 s, 1,000 flags
import autocannon from 'autocannon';
import { build } from 'esbuild';
import { fork } from 'node:child_process';
import { request, createServer } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { NODE_BUNDLE, startBundledServer } from './server-kit.mjs';

const SERVER_KEY = 'svc_sdk_server_demo_prod_0001';
const ROOT = join(fileURLToPath(import.meta.url), '../..');

const COUNTRIES = 'AD AE AR AT AU BE BG BR CA CH CL CN CO CZ DE DK EE EG ES FI FR GB GR HK HR HU ID IE IL IN IS IT JP KE KR LT LU LV MA MX MY NG NL NO NZ PE PH PK PL PT RO RS SA SE SG SI SK TH TR TW UA US VN ZA'.split(' ');

/** A seeded generator (mulberry32): the same snapshot in every run. */
function seeded(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A flag of an experiment program, as issue 28 measured: five rules, each a country `in` list
 * served a 50/50 rollout. Ids, salts and country lists vary per flag, so the JSON is no more
 * repetitive than a real one (bench-kit's makeFlag repeats itself and compresses 200×).
 */
function experimentFlag(i, random) {
  const hex = () => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  const countries = () => COUNTRIES.filter(() => random() < 0.1);
  const rule = (r) => ({
    id: `geo-${r}-${hex()}`,
    conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values: countries() }],
    serve: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] },
  });
  return { on: random() < 0.8, variations: ['control', 'treatment'], offVariation: 0, rules: [0, 1, 2, 3, 4].map(rule), fallthrough: { variation: 0 }, salt: `${hex()}${hex()}`, clientSide: i % 2 === 0 };
}

const snapshotOf = (count) => {
  const random = seeded(28);
  return { schemaVersion: 1, flags: Object.fromEntries(Array.from({ length: count }, (_, i) => [`experiment-${i}-${Math.floor(random() * 1e6)}`, experimentFlag(i, random)])) };
};

// ---------------------------------------------------------------------------------------
// Children: one server each, announcing its port.

/** The reference server holding the big snapshot; it answers the parent's questions about its event loop. */
async function serveReference(count) {
  const server = await startBundledServer({ port: 0, limits: { streamsPerAddress: 0 } });
  await server.publish('production', snapshotOf(count));
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  process.on('message', (message) => {
    const loopMaxMs = loop.max / 1e6;
    if (message === 'loop-reset') loop.reset();
    process.send({ loopMaxMs });
  });
  process.send({ port: server.port });
}

/** The same headers and pre-compressed bytes, from a bare handler. */
function serveBare({ headers, body }) {
  const bytes = Buffer.from(body, 'base64');
  const server = createServer((req, res) => {
    res.writeHead(200, { ...headers, 'content-length': String(bytes.length) });
    res.end(bytes);
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

// ---------------------------------------------------------------------------------------
// The parent.

function start(role, argument) {
  const child = fork(fileURLToPath(import.meta.url), [role, typeof argument === 'number' ? String(argument) : ''], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (typeof argument === 'object') child.send(argument);
  return new Promise((resolve, reject) => {
    child.once('message', ({ port }) => resolve({ child, base: `http://127.0.0.1:${port}` }));
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
}

const ask = (child, message) =>
  new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });

/** One GET over node:http (nothing decoded), timed. */
function rawGet(url, headers) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers, agent: false }, (answer) => {
      const chunks = [];
      answer.on('data', (chunk) => chunks.push(chunk));
      answer.on('end', () => resolve({ headers: answer.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** The server's own compressor, bundled from its sources. */
async function serverCompressor() {
  const outfile = join(ROOT, 'node_modules/.cache/flagplane-bench-server/compression.mjs');
  await build({ ...NODE_BUNDLE, entryPoints: [join(ROOT, 'reference-server/http/compression.ts')], outfile });
  return import(pathToFileURL(outfile).href);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const timed = async (work) => {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
};

/** Each coding's bytes and compression time, with the server's settings and with the slowest ones. */
async function compressionTable(body) {
  const { zlibCompressor, BROTLI_QUALITY, GZIP_LEVEL } = await serverCompressor();
  const rows = [];
  for (const coding of ['br', 'gzip']) {
    const { result, ms } = await timed(() => zlibCompressor(coding, body));
    rows.push([`${coding} (server: ${coding === 'br' ? `quality ${BROTLI_QUALITY}` : `level ${GZIP_LEVEL}`}, async)`, result.length, ms]);
  }
  const brMax = await timed(async () => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
  rows.push(['br quality 11 (for comparison)', brMax.result.length, brMax.ms]);
  const gzipMax = await timed(async () => gzipSync(body, { level: 9 }));
  rows.push(['gzip level 9 (for comparison)', gzipMax.result.length, gzipMax.ms]);
  return rows;
}

async function load(url, headers, seconds) {
  const result = await autocannon({ url, headers, connections: 50, duration: seconds });
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} answers were not 2xx`);
  return { rps: result.requests.average, p99: result.latency.p99, mibs: result.throughput.average / 2 ** 20 };
}

async function main() {
  const rounds = Number(process.argv[2] ?? 3);
  const seconds = Number(process.argv[3] ?? 5);
  const count = Number(process.argv[4] ?? 10_000);
  const reference = await start('reference', count);
  const url = `${reference.base}/sdk/v1/snapshot`;
  const auth = { authorization: `Bearer ${SERVER_KEY}` };
  const lines = [];
  let bare;
  try {
    const plain = await rawGet(url, auth);
    // The body is built; what follows is compression only.
    await ask(reference.child, 'loop-reset');
    const firstBr = await rawGet(url, { ...auth, 'accept-encoding': 'br' });
    const { loopMaxMs } = await ask(reference.child, 'loop-max');
    const cachedBr = await rawGet(url, { ...auth, 'accept-encoding': 'br' });
    const firstGzip = await rawGet(url, { ...auth, 'accept-encoding': 'gzip' });
    lines.push(`GET /sdk/v1/snapshot, ${count} flags, server key: ${kib(plain.body.length)} of JSON`, '');
    lines.push(`${'coding'.padEnd(36)}${'bytes sent'.padStart(14)}${'ratio'.padStart(8)}${'compression ms'.padStart(16)}`);
    for (const [name, bytes, ms] of await compressionTable(plain.body)) {
      lines.push(`${name.padEnd(36)}${kib(bytes).padStart(14)}${`${(plain.body.length / bytes).toFixed(1)}×`.padStart(8)}${ms.toFixed(0).padStart(16)}`);
    }
    lines.push(`${'route, identity'.padEnd(36)}${kib(plain.body.length).padStart(14)}`);
    lines.push(`${'route, br'.padEnd(36)}${kib(firstBr.body.length).padStart(14)}`);
    lines.push(`${'route, gzip'.padEnd(36)}${kib(firstGzip.body.length).padStart(14)}`, '');
    lines.push(`first br answer of the version (compresses): ${firstBr.ms.toFixed(0)} ms; the next (cached): ${cachedBr.ms.toFixed(1)} ms`);
    lines.push(`longest event-loop delay of the server meanwhile: ${loopMaxMs.toFixed(1)} ms (compression runs on the thread pool)`, '');

    const sameHeaders = Object.fromEntries(Object.entries(firstBr.headers).filter(([name]) => !['connection', 'date', 'keep-alive', 'content-length'].includes(name)));
    bare = await start('bare', { headers: sameHeaders, body: firstBr.body.toString('base64') });
    const samples = { reference: [], bare: [] };
    const headers = { ...auth, 'accept-encoding': 'br' };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? ['bare', 'reference'] : ['reference', 'bare'];
      for (const name of order) samples[name].push(await load(`${name === 'bare' ? bare.base : reference.base}/sdk/v1/snapshot`, headers, seconds));
    }
    const [ref, base] = [samples.reference, samples.bare].map((runs) => ({ rps: median(runs.map((r) => r.rps)), p99: median(runs.map((r) => r.p99)), mibs: median(runs.map((r) => r.mibs)) }));
    lines.push(`br 200s, 50 connections, ${rounds} rounds of ${seconds} s, medians`);
    lines.push(`${''.padEnd(12)}${'req/s'.padStart(10)}${'MiB/s'.padStart(10)}${'p99 ms'.padStart(10)}`);
    lines.push(`${'reference'.padEnd(12)}${ref.rps.toFixed(0).padStart(10)}${ref.mibs.toFixed(0).padStart(10)}${String(ref.p99).padStart(10)}`);
    lines.push(`${'bare'.padEnd(12)}${base.rps.toFixed(0).padStart(10)}${base.mibs.toFixed(0).padStart(10)}${String(base.p99).padStart(10)}`);
    lines.push(`ratio ${(ref.rps / base.rps).toFixed(2)}× bare`);
  } finally {
    reference.child.kill();
    bare?.child.kill();
  }
  console.log(`flagplane bench:compress — ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, node ${process.version}`);
  console.log(lines.join('\n'));
  console.log('\na report, never a gate: the exit code is 0 whatever the figures');
}

if (process.argv[2] === 'reference') await serveReference(Number(process.argv[3]));
else if (process.argv[2] === 'bare') process.once('message', serveBare);
else await main();
