// `node --expose-gc scripts/bench-large-client.mjs [flags]`: the client holding a large
// environment (10,000 flags by default), each figure next to a baseline measured in the same
// run (docs/performance.md, "10,000 flags: the client"). Like `npm run bench`, it reports and
// never gates.
//
// The snapshot is served from loopback by a bare node:http server in a child process (so that
// its writes are not timed in the client's event loop), answering the client's GETs with the
// same bytes and ETag every time, and its event POSTs with a 202. The SDK is loaded through its
// public entry, bundled in memory (scripts/bench-kit.mjs).
//
// `measureLargeClient({ flags })` returns the rows, for scripts that print them in their own
// table; `largeFlag(i)` and `largeSnapshot(n)` are the fixtures.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { load } from './bench-kit.mjs';
import { fmt, interleave, median, now, settle } from './bench-measure.mjs';

const SDK_KEY = 'svc_sdk_client_bench_0001';
const COUNTRIES = ['US', 'CA', 'MX', 'BR', 'AR', 'GB', 'IE', 'FR', 'DE', 'ES', 'IT', 'NL', 'BE', 'AT', 'PT', 'PL', 'SE', 'NO', 'DK', 'FI', 'JP', 'KR', 'IN', 'AU'];
const HALF = { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] };

export const TARGET = { readyMs: 300, setContextRatio: 1.5, getAllMs: 1 };

/** Five rules of country `in` conditions (three serving a 50/50 rollout, two a variation) over a 50/50 fallthrough: ~1.1 KB of JSON. */
export function largeFlag(i) {
  return {
    on: true,
    variations: ['control', 'treatment'],
    offVariation: 0,
    rules: Array.from({ length: 5 }, (_, r) => ({
      id: `market-${r}`,
      conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values: Array.from({ length: 6 }, (_, c) => COUNTRIES[(i + r * 5 + c) % COUNTRIES.length]) }],
      serve: r % 2 ? { variation: 1 } : HALF,
    })),
    fallthrough: HALF,
    salt: `experiment-${i}`,
    clientSide: true,
  };
}

/** A schema-1 snapshot of `n` {@link largeFlag}s. */
export const largeSnapshot = (n) => ({
  schemaVersion: 1,
  version: 1,
  environmentId: 'large',
  flags: Object.fromEntries(Array.from({ length: n }, (_, i) => [`experiment-${i}`, largeFlag(i)])),
});

/** Two users, one in a market most rules target and one in none of the first ones. */
const contextOf = (i) => ({ userId: `user-${i}`, attributes: { country: i % 2 ? 'ZZ' : 'FR', plan: 'free' }, segmentIds: [] });

/** The child's side: serves `json` for every GET and 202 for every POST, and reports its port. */
function serve(flagCount) {
  const body = Buffer.from(JSON.stringify(largeSnapshot(flagCount)));
  const server = createServer((request, response) => {
    request.resume();
    if (request.method === 'POST') return request.on('end', () => response.writeHead(202).end());
    if (request.headers['if-none-match'] === '"v1"') return response.writeHead(304, { etag: '"v1"' }).end();
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, etag: '"v1"', 'cache-control': 'no-cache' }).end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port, bytes: body.length }));
  process.on('disconnect', () => server.close(() => process.exit(0)));
}

/** Starts the child server; resolves to its URL, the snapshot's size and the function that stops it. */
function startServer(flagCount) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', String(flagCount)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', ({ port, bytes }) =>
      resolve({
        url: `http://127.0.0.1:${port}`,
        bytes,
        stop: () => new Promise((done) => (child.once('exit', done), child.disconnect())),
      }),
    );
  });
}

const ms = (ns) => ns / 1e6;

/**
 * The rows of the large-environment client bench, `{ name, value, baseline, ratio?, target?, ok? }`
 * as scripts/bench.mjs prints them. `rounds` per timed section (after one warm-up round).
 */
export async function measureLargeClient({ flags = 10_000, rounds = 7, sdk } = {}) {
  const { createClient, evaluateFlag } = sdk ?? (await load(process.env.BENCH_ENTRY ?? 'src/index.ts'));
  const server = await startServer(flags);
  const options = (extra) => ({ sdkKey: SDK_KEY, baseUrl: server.url, pollInterval: 0, readyTimeout: 30_000, ...extra });
  const keys = Array.from({ length: flags }, (_, i) => `experiment-${i}`);
  const rows = [];
  try {
    // 1. createClient → ready() from the network, against fetch + text + JSON.parse of the same answer.
    const samples = await interleave(
      {
        client: async () => {
          const start = now();
          const client = createClient(options({ events: false }));
          const result = await client.ready();
          const elapsed = ms(now() - start);
          await client.close();
          if (result.status !== 'ready') throw new Error(`ready() gave ${JSON.stringify(result)}`);
          return elapsed;
        },
        fetchParse: async () => {
          const start = now();
          const response = await fetch(`${server.url}/sdk/v1/snapshot`, { headers: { authorization: `Bearer ${SDK_KEY}` } });
          const parsed = JSON.parse(await response.text());
          const elapsed = ms(now() - start);
          return parsed.version === 1 ? elapsed : NaN;
        },
      },
      rounds,
    );
    const ready = median(samples.client);
    const floor = median(samples.fetchParse);
    rows.push({
      name: `createClient → ready(), ${flags.toLocaleString('en')} flags (${(server.bytes / 2 ** 20).toFixed(1)} MiB)`,
      value: `${fmt(ready)} ms`,
      baseline: `${fmt(floor)} ms (fetch + JSON.parse)`,
      ratio: ready / floor,
      target: `≤ ${TARGET.readyMs} ms`,
      ok: ready <= TARGET.readyMs,
    });

    // 2. setContext with every flag read (getAll), against evaluateFlag over the same flags.
    const client = createClient(options({ context: contextOf(0) }));
    await client.ready();
    client.getAll();
    const bare = JSON.parse(JSON.stringify(largeSnapshot(flags))).flags;
    const flagList = keys.map((key) => bare[key]);
    let turn = 0;
    const SWITCHES = 4;
    const switched = await interleave(
      {
        setContext: () => {
          const contexts = Array.from({ length: SWITCHES }, () => contextOf(++turn));
          const start = now();
          for (const context of contexts) client.setContext(context);
          return ms(now() - start) / SWITCHES;
        },
        evaluateFlag: () => {
          const contexts = Array.from({ length: SWITCHES }, () => contextOf(++turn));
          let sink = 0;
          const start = now();
          for (const context of contexts) for (const flag of flagList) if (evaluateFlag(flag, context, context.userId).kind === 'served') sink++;
          const elapsed = ms(now() - start) / SWITCHES;
          return sink === flags * SWITCHES ? elapsed : NaN;
        },
      },
      rounds,
    );
    const set = median(switched.setContext);
    const base = median(switched.evaluateFlag);
    rows.push({
      name: 'setContext, every flag read',
      value: `${fmt(set)} ms`,
      baseline: `${fmt(base)} ms (evaluateFlag × ${flags.toLocaleString('en')})`,
      ratio: set / base,
      target: `≤ ${TARGET.setContextRatio}× evaluateFlag`,
      ok: set <= TARGET.setContextRatio * base,
    });

    // 3. getAll(): unchanged (the same object), then the first call after a context change.
    client.getAll();
    const CALLS = 1000;
    let same = 0;
    const start = now();
    const first = client.getAll();
    for (let i = 1; i < CALLS; i++) if (client.getAll() === first) same++;
    const unchanged = ms(now() - start) / CALLS;
    const rebuilt = [];
    for (let i = 0; i < rounds; i++) {
      client.setContext(contextOf(++turn));
      const t = now();
      client.getAll();
      rebuilt.push(ms(now() - t));
    }
    const copyStart = now();
    const copy = { ...first };
    const copyMs = ms(now() - copyStart);
    rows.push(
      {
        name: 'getAll(), nothing changed',
        value: `${fmt(unchanged * 1000)} µs`,
        baseline: same === CALLS - 1 ? 'the same object each call' : 'a new object each call',
        target: `≤ ${TARGET.getAllMs} ms`,
        ok: unchanged <= TARGET.getAllMs,
      },
      { name: '  first getAll() after setContext', value: `${fmt(median(rebuilt))} ms`, baseline: `${fmt(copyMs)} ms ({ ...all } copy)`, ratio: median(rebuilt) / copyMs },
    );
    await client.close();
    rows.push(...(await heap(createClient, options, keys, flags)));
  } finally {
    await server.stop();
  }
  return rows;
}

/** Heap with every flag read, against the same snapshot parsed and held with no client. */
async function heap(createClient, options, keys, flags) {
  const text = JSON.stringify(largeSnapshot(flags));
  const kb = (bytes) => bytes / flags / 1024;
  const h0 = await settle();
  let held = JSON.parse(text);
  const hJson = await settle();
  held = null;
  const h1 = await settle();
  let client = createClient(options({ events: false, context: contextOf(0) }));
  await client.ready();
  const hReady = await settle();
  for (const key of keys) client.get(key, 'control');
  const hRead = await settle();
  client.getAll();
  const hAll = await settle();
  await client.close();
  client = null;
  const json = kb(hJson - h0);
  const total = kb(hAll - h1);
  return [
    { name: 'heap per flag, all read + getAll()', value: `${fmt(total)} KB (+${fmt((hAll - h1) / 2 ** 20)} MiB)`, baseline: `${fmt(json)} KB (the parsed JSON)`, ratio: total / json },
    { name: '  the snapshot held (after ready())', value: `${fmt(kb(hReady - h1))} KB`, baseline: '' },
    { name: '  every flag read with get()', value: `${fmt(kb(hRead - hReady))} KB`, baseline: '' },
    { name: '  getAll()', value: `${fmt(kb(hAll - hRead))} KB`, baseline: '' },
    { name: '  ours (all − the parsed JSON)', value: `${fmt(total - json)} KB`, baseline: '' },
  ];
}

export function printRow(r) {
  const ratio = r.ratio === undefined || !Number.isFinite(r.ratio) ? '' : `${r.ratio >= 10 ? r.ratio.toFixed(0) : r.ratio.toFixed(1)}×`;
  const verdict = r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS';
  console.log(`${r.name.padEnd(48)} ${r.value.padEnd(26)} ${r.baseline.padEnd(36)} ${ratio.padStart(6)}  ${(r.target ?? '').padEnd(22)} ${verdict}`.trimEnd());
}

if (process.argv[2] === '--serve') serve(Number(process.argv[3]));
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flags = Number(process.argv[2] ?? 10_000);
  const cpus = os.cpus();
  console.log(`flagplane bench, large environment — ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, node ${process.version}; medians after a warm-up round`);
  console.log(`${'measure'.padEnd(48)} ${'flagplane'.padEnd(26)} ${'baseline'.padEnd(36)} ${'×base'.padStart(6)}  ${'target'.padEnd(22)} verdict`);
  try {
    for (const row of await measureLargeClient({ flags })) printRow(row);
  } catch (error) {
    console.error('bench failed:', error);
  }
  process.exitCode = 0;
}
