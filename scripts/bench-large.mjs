// npm run bench:large — issue 28's table for large environments (docs/performance.md, Large
// environments): every step at 1,000 and 10,000 flags of five rules each
// (scripts/large-environment.mjs), each next to a baseline measured in the same run.
//
// The reference server runs in a child process (scripts/large-server.mjs) at its defaults,
// on memory, then on Redis when a redis-server is found; the baseline, a bare node:http server
// sending the same bytes, in another. The SDK, bundled from src/index.ts, runs in this process
// at its default options. Every figure is the median of the rounds. It reports and never
// gates: the exit code is 0 whatever the figures.
//
//   npm run bench:large                          # 1,000 and 10,000 flags, 7 rounds
//   node --expose-gc scripts/bench-large.mjs 4000 --rounds 3
import { execFileSync, fork } from 'node:child_process';
import { request } from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { load } from './bench-kit.mjs';
import { fmtMs, interleave, median, now, runReport } from './bench-measure.mjs';
import { clientHeap, contextAndGetAll, readyFromNetwork } from './large-client.mjs';
import { largeFlagKey, largeSnapshot } from './large-environment.mjs';
import { startThrowawayRedis } from './redis-kit.mjs';
import { probeSdkAcceptEncoding } from './sdk-request-probe.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const ROUNDS = at === -1 ? 7 : Number(args[at + 1]);
const COUNTS = args.filter((arg, i) => /^\d+$/.test(arg) && args[i - 1] !== '--rounds').map(Number);
const FLAG_COUNTS = COUNTS.length > 0 ? COUNTS : [1000, 10_000];
/** Whole-snapshot PUTs are slow by design today: fewer rounds. */
const PUT_ROUNDS = Math.min(ROUNDS, 3);
const TARGET = { patchMs: 50, putMs: 1000 };
const WATCHDOG_MS = 300_000;
const SNAPSHOT = '/sdk/v1/snapshot';
const ms = (from) => (now() - from) / 1e6;
const verdict = (met) => (met ? 'met' : 'missed');
const MB = (bytes) => `${(bytes / 1e6).toFixed(bytes < 1e6 ? 2 : 1)} MB`;

/** One HTTP exchange on loopback: the raw body as sent (never decoded) and the time to its last byte. */
function exchange(port, { method = 'GET', path = SNAPSHOT, headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const start = now();
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), ms: ms(start) }));
      res.on('error', reject);
    });
    // A server may answer (a 413) before the body is sent, and close: the answer is what counts.
    req.on('error', reject);
    req.end(body);
  });
}

function startChild(argv, message) {
  const child = fork(fileURLToPath(new URL('./large-server.mjs', import.meta.url)), argv, { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (message) child.send(message);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`large-server.mjs ${argv.join(' ')} exited with ${code}`)));
    child.once('message', (ready) =>
      resolve({
        ...ready,
        url: `http://127.0.0.1:${ready.port}`,
        stop: () => new Promise((done) => (child.removeAllListeners('exit'), child.once('exit', done), child.send({ type: 'stop' }))),
      }),
    );
  });
}

/** What the reference server answers `acceptEncoding` (no header for ''), as the bare server will replay it. */
async function recordAnswer(reference, acceptEncoding) {
  const headers = { authorization: `Bearer ${reference.clientKey}`, ...(acceptEncoding && { 'accept-encoding': acceptEncoding }) };
  const answer = await exchange(reference.port, { headers });
  const kept = Object.entries(answer.headers).filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name));
  return { acceptEncoding, status: answer.status, headers: Object.fromEntries(kept), body: answer.body };
}

function decoded(answer) {
  const encoding = answer.headers['content-encoding'];
  const body = encoding === 'br' ? brotliDecompressSync(answer.body) : encoding === 'gzip' ? gunzipSync(answer.body) : answer.body;
  return body.toString('utf8');
}

/** GET /sdk/v1/snapshot with `Accept-Encoding: gzip, br`, against the bare server sending the same bytes. */
async function snapshotGet(reference, bare, answer) {
  const headers = { authorization: `Bearer ${reference.clientKey}`, 'accept-encoding': 'gzip, br' };
  const samples = await interleave({ reference: async () => (await exchange(reference.port, { headers })).ms, bare: async () => (await exchange(bare.port, { headers })).ms }, ROUNDS);
  const encoding = answer.headers['content-encoding'] ?? 'not compressed';
  const vary = answer.headers.vary ?? '—';
  const compressed = answer.headers['content-encoding'] !== undefined && /accept-encoding/i.test(vary);
  const value = median(samples.reference);
  return [
    {
      step: '`GET /sdk/v1/snapshot` with `Accept-Encoding: gzip, br`',
      value: `${answer.status}, ${MB(answer.body.length)}, ${encoding} (\`Vary: ${vary}\`), ${fmtMs(value)}`,
      baseline: `${fmtMs(median(samples.bare))} (bare node:http, same bytes)`,
      ratio: value / median(samples.bare),
      target: `compressed, \`Vary: Accept-Encoding\`: ${verdict(compressed)}`,
    },
  ];
}

const errorCode = (answer) => {
  try {
    return JSON.parse(answer.body).error?.code ?? '';
  } catch {
    return '';
  }
};
const statuses = (answers) => [...new Set(answers.map((a) => `${a.status}${a.status >= 400 ? ` ${errorCode(a)}` : ''}`))].join(' / ');

/** Whole-snapshot PUTs (plain and gzip-encoded bodies), then one-flag PATCHes; each against the bare server. */
async function adminWrites(reference, bare, flagCount, engine) {
  const json = Buffer.from(JSON.stringify(largeSnapshot(flagCount)));
  const headers = { authorization: `Bearer ${reference.adminToken}`, 'content-type': 'application/json' };
  const suffix = engine === 'memory' ? '' : ` (${engine})`;
  const rows = [];
  for (const [label, body, extra] of [['', json, {}], [', body gzip-encoded', gzipSync(json), { 'content-encoding': 'gzip' }]]) {
    const put = { method: 'PUT', path: '/admin/v1/environments/production/snapshot', headers: { ...headers, ...extra }, body };
    const answers = [];
    const samples = await interleave({ reference: async () => (answers.push(await exchange(reference.port, put)), answers.at(-1).ms), bare: async () => (await exchange(bare.port, put)).ms }, PUT_ROUNDS);
    const value = median(samples.reference);
    const accepted = answers.every((a) => a.status === 200);
    rows.push({
      step: `Whole-snapshot \`PUT\`${suffix}, ${MB(body.length)}${label}`,
      value: `${statuses(answers)} in ${fmtMs(value)}`,
      baseline: `${fmtMs(median(samples.bare))} (bare: read, JSON.parse, 200)`,
      // A refusal is not the same work as the bare server's acceptance: no ratio.
      ratio: accepted ? value / median(samples.bare) : undefined,
      target: `accepted, ≤ ${TARGET.putMs / 1000} s: ${verdict(accepted && value <= TARGET.putMs)}`,
    });
  }
  let turn = 0;
  const patch = () => ({
    method: 'PATCH',
    // Flags spread over the environment; `on` toggled, as a console's switch does.
    path: `/admin/v1/environments/production/flags/${largeFlagKey((turn * 7919) % flagCount)}`,
    headers,
    body: JSON.stringify({ on: turn++ % 2 === 0 }),
  });
  const answers = [];
  const samples = await interleave({ reference: async () => (answers.push(await exchange(reference.port, patch())), answers.at(-1).ms), bare: async () => (await exchange(bare.port, patch())).ms }, ROUNDS);
  const value = median(samples.reference);
  const patched = answers.every((a) => a.status === 200);
  rows.push({
    step: `One-flag \`PATCH\`${suffix}`,
    value: `${statuses(answers)} in ${fmtMs(value)} (max ${fmtMs(Math.max(...samples.reference))})`,
    baseline: `${fmtMs(median(samples.bare))} (bare: read, JSON.parse, 200)`,
    ratio: patched ? value / median(samples.bare) : undefined,
    target: `≤ ${TARGET.patchMs} ms: ${verdict(patched && value <= TARGET.patchMs)}`,
  });
  return rows;
}

/** Runs one section; a section that throws becomes one row saying so, and the others still run. */
async function section(rows, name, run) {
  try {
    rows.push(...(await run()));
  } catch (error) {
    rows.push({ step: name, value: `failed: ${error?.message ?? error}`, baseline: '', target: '' });
  }
}

async function runSize(flagCount, sdk, sdkAcceptEncoding, redis) {
  const reference = await startChild(['reference', String(flagCount)]);
  const answers = [await recordAnswer(reference, 'gzip, br')];
  if (sdkAcceptEncoding !== 'gzip, br') answers.push(await recordAnswer(reference, sdkAcceptEncoding));
  const bare = await startChild(['bare'], { answers });
  const bodyText = decoded(answers[0]);
  const keys = Object.keys(JSON.parse(bodyText).flags);
  const env = { sdk, clientKey: reference.clientKey, referenceUrl: reference.url, bareUrl: bare.url, acceptEncoding: sdkAcceptEncoding, bodyText };
  // Run in this order (the client reads the snapshot the bare server replays, before any write
  // changes it), printed in the issue's order.
  const [get, writes, ready, context, heap] = [[], [], [], [], []];
  await section(get, 'GET /sdk/v1/snapshot', () => snapshotGet(reference, bare, answers[0]));
  await section(ready, 'ready from the network', () => readyFromNetwork(env, ROUNDS));
  await section(context, 'setContext and getAll', () => contextAndGetAll(env, keys, ROUNDS));
  await section(heap, 'client heap', () => clientHeap(env, keys));
  await section(writes, 'admin writes', () => adminWrites(reference, bare, flagCount, 'memory'));
  await reference.stop();
  if (redis) {
    await section(writes, 'admin writes on Redis', async () => {
      const onRedis = await startChild(['reference', String(flagCount), redis.url]);
      try {
        return await adminWrites(onRedis, bare, flagCount, 'Redis');
      } finally {
        await onRedis.stop();
      }
    });
  }
  const rows = [...get, ...writes, ...ready, ...context, ...heap];
  await bare.stop();
  const size = Buffer.byteLength(JSON.stringify(largeSnapshot(flagCount))) / 2 ** 20;
  console.log(`\n### ${flagCount.toLocaleString('en')} flags (${size.toFixed(1)} MiB of snapshot JSON, ${keys.length.toLocaleString('en')} served to the client key)\n`);
  console.log('| Step | flagplane | Baseline | × baseline | Target (issue 28, at 10,000 flags) |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    const ratio = r.ratio === undefined || !Number.isFinite(r.ratio) ? '' : `${r.ratio >= 10 ? r.ratio.toFixed(0) : r.ratio.toFixed(1)}×`;
    console.log(`| ${r.step} | ${r.value} | ${r.baseline} | ${ratio} | ${r.target} |`);
  }
}

function describeRun(sdkAcceptEncoding, redis) {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {}
  const cpus = os.cpus();
  console.log(`flagplane bench:large — ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${os.platform()} ${os.arch()}, node ${process.version}, commit ${commit}, ${new Date().toISOString()}, load average ${os.loadavg()[0].toFixed(1)}`);
  console.log(`medians of ${ROUNDS} rounds after a warm-up (whole-snapshot PUT: ${PUT_ROUNDS}; heap: 3), loopback`);
  console.log('reference server: startReferenceServer({ port: 0 }), every other option at its default (on Redis: + { redis, allowDemoCredentials: true })');
  console.log(`client: createClient({ sdkKey, baseUrl }), every other option at its default (events on, polling, no stream); its transport sends Accept-Encoding: ${sdkAcceptEncoding || '(none)'}`);
  if (!redis) console.log('no redis-server on PATH (or FLAGPLANE_REDIS_SERVER): the Redis rows are skipped');
}

/** The bench's redis-server, for the watchdog to kill. */
let redis;

async function main() {
  const sdk = await load('src/index.ts');
  const sdkAcceptEncoding = await probeSdkAcceptEncoding(sdk);
  redis = await startThrowawayRedis().catch((error) => (console.log(`redis-server failed to start (${error.message}): the Redis rows are skipped`), undefined));
  describeRun(sdkAcceptEncoding, redis);
  const started = Date.now();
  try {
    for (const flagCount of FLAG_COUNTS) await runSize(flagCount, sdk, sdkAcceptEncoding, redis);
  } finally {
    await redis?.stop();
  }
  console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s; a report, never a gate: the exit code is 0 whatever the verdicts`);
}

await runReport('bench:large', main, { watchdogMs: WATCHDOG_MS, onGiveUp: () => redis?.kill() });
