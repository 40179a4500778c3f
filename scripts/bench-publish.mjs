// Publishing a large environment through the admin API (docs/performance.md, "Publishing"):
// a whole-snapshot PUT of `--flags` flags (plain and gzip), then one-flag PATCH, PUT and DELETE,
// on the memory engine and on Redis (a redis-server of its own, when one is on PATH). Baselines
// in the same run: a bare node:http server reading and parsing the same body, and the same
// one-flag changes on the seven-flag demo environment.
//
//   node scripts/bench-publish.mjs [--flags 10000] [--edits 20] [--engines memory,redis]
//   node --cpu-prof --cpu-prof-dir=/tmp/prof scripts/bench-publish.mjs --engines memory
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { median, quantile } from './bench-measure.mjs';
import { largeFlag, largeFlagKey, largeSnapshot } from './large-environment.mjs';
import { startBundledServer } from './server-kit.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const FLAGS = Number(arg('flags', '10000'));
const EDITS = Number(arg('edits', '20'));
const ENGINES = arg('engines', 'memory,redis').split(',');
const TOKEN = 'bench-admin-token';

const ms = (ns) => (ns / 1e6).toFixed(1);
const clock = () => Number(process.hrtime.bigint());

async function timed(work) {
  const started = clock();
  const result = await work();
  return { ns: clock() - started, result };
}

async function send(base, method, path, body, headers = {}) {
  const response = await fetch(`${base}${path}`, { method, body, headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  let binary;
  try {
    binary = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'flagplane-bench-redis-'));
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', () => reject(new Error(`redis-server exited: ${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The floor of a whole PUT: a bare node:http server that reads the body and parses it. */
async function bareParse(body) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const rounds = [];
  for (let i = 0; i < 5; i += 1) rounds.push((await timed(() => send(base, 'PUT', '/', body))).ns);
  await new Promise((resolve) => server.close(resolve));
  return median(rounds);
}

/** One-flag PUT (creates or replaces), PATCH and DELETE of `EDITS` flags, each keyed by `keyOf`. */
async function oneFlagChanges(base, keyOf) {
  const figures = { PATCH: [], PUT: [], DELETE: [] };
  for (let i = 0; i < EDITS; i += 1) {
    const key = keyOf(i);
    const path = `/admin/v1/environments/production/flags/${key}`;
    figures.PUT.push((await timed(() => send(base, 'PUT', path, JSON.stringify({ ...largeFlag(i + 1), salt: key })))).ns);
    figures.PATCH.push((await timed(() => send(base, 'PATCH', path, JSON.stringify({ on: i % 2 === 0 })))).ns);
    figures.DELETE.push((await timed(() => send(base, 'DELETE', path))).ns);
  }
  return figures;
}

const line = (what, xs) => `${what.padEnd(34)} p50 ${ms(median(xs)).padStart(8)} ms   p90 ${ms(quantile(xs, 0.9)).padStart(8)} ms   max ${ms(Math.max(...xs)).padStart(8)} ms`;

const DEMO = JSON.parse(readFileSync(new URL('../reference-server/demo.json', import.meta.url), 'utf8'));

/** The demo config with `snapshot` as production's, seeded at start (so that a server that refuses the whole PUT is measured too). */
const configWith = (snapshot) => ({ ...DEMO, adminToken: TOKEN, environments: DEMO.environments.map((env) => (env.id === 'production' ? { ...env, snapshot } : env)) });

async function withServer(engine, redis, config, work) {
  const options = { config, allowDemoCredentials: true, ...(engine === 'redis' ? { redis: redis.url, redisPrefix: `bench-${process.pid}-${Math.random()}:` } : {}) };
  const server = await startBundledServer(options);
  try {
    return await work(server);
  } finally {
    await server.close();
  }
}

/** Redis's `used_memory_human`, after the run's publishes. */
async function redisMemory(url) {
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  try {
    return /used_memory_human:(\S+)/.exec(await client.info('memory'))?.[1];
  } finally {
    client.disconnect();
  }
}

/** `rounds` whole PUTs of `content`; each figure, or the refusal. */
async function wholePuts(base, content, headers, rounds = 3) {
  const figures = [];
  for (let i = 0; i < rounds; i += 1) {
    const { ns, result } = await timed(() => send(base, 'PUT', '/admin/v1/environments/production/snapshot', content, headers).then(() => 'ok', (error) => error.message));
    if (result !== 'ok') return result.slice(0, 120);
    figures.push(ns);
  }
  return figures;
}

const wholeLine = (what, figures) => (typeof figures === 'string' ? `${what.padEnd(34)} refused: ${figures}` : line(what, figures));

async function runEngine(engine, redis) {
  const small = await withServer(engine, redis, configWith(DEMO.environments[0].snapshot), (server) => oneFlagChanges(server.baseUrl, (i) => `bench-flag-${i}`));
  const snapshot = largeSnapshot(FLAGS);
  const body = JSON.stringify(snapshot);
  const gzipped = gzipSync(body);
  await withServer(engine, redis, configWith(snapshot), async (server) => {
    const large = await oneFlagChanges(server.baseUrl, (i) => largeFlagKey(i * 7));
    const whole = await wholePuts(server.baseUrl, body, {});
    const wholeGzip = await wholePuts(server.baseUrl, gzipped, { 'content-encoding': 'gzip' });
    // The first GET after a publish assembles (or serialises) the new version's body.
    const firstGet = await timed(() => fetch(`${server.baseUrl}/sdk/v1/snapshot`, { headers: { authorization: 'Bearer svc_sdk_server_demo_prod_0001' } }).then((r) => r.arrayBuffer()));
    console.log(`\n${engine}: ${FLAGS} flags, ${(body.length / 1048576).toFixed(1)} MiB (${(gzipped.length / 1048576).toFixed(2)} MiB gzip)`);
    for (const method of ['PUT', 'PATCH', 'DELETE']) console.log(line(`one-flag ${method}, ${FLAGS} flags`, large[method]));
    for (const method of ['PUT', 'PATCH', 'DELETE']) console.log(line(`one-flag ${method}, 7 flags (baseline)`, small[method]));
    console.log(wholeLine('whole PUT', whole));
    console.log(wholeLine('whole PUT, gzip body', wholeGzip));
    console.log(`${'GET /sdk/v1/snapshot after a publish'.padEnd(34)} ${ms(firstGet.ns).padStart(12)} ms (${(firstGet.result.byteLength / 1048576).toFixed(1)} MiB)`);
    if (engine === 'redis') console.log(`${'Redis used_memory'.padEnd(34)} ${await redisMemory(redis.url)} (${server.stores.environments.get('production').kv.snapshots.size} versions kept)`);
  });
  return body;
}

let body;
const redis = ENGINES.includes('redis') ? await startRedis() : undefined;
try {
  for (const engine of ENGINES) {
    if (engine === 'redis' && !redis) {
      console.log('\nredis: no redis-server on PATH, skipped');
      continue;
    }
    body = await runEngine(engine, redis);
  }
} finally {
  await redis?.stop();
}
if (body) console.log(`\n${'bare node:http, read + JSON.parse'.padEnd(34)} p50 ${ms(await bareParse(body)).padStart(8)} ms (the floor of a whole PUT)`);
