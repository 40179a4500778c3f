// `npm run bench:peers`: start-up cost of flagplane next to two peer SDKs, Unleash's browser
// SDK (unleash-proxy-client) and GrowthBook's JavaScript SDK (@growthbook/growthbook), all with
// their default options, in the same Node process and run, next to a plain-JavaScript baseline
// (docs/performance.md, "Peers"). Issue 22's target, flagplane's init→ready median at most
// 0.75× Unleash's, is a line of the report, never a gate: the exit code is 0 whatever the
// numbers are, and a section that fails prints its error and the rest still runs.
//
// flagplane is loaded as scripts/bench.mjs loads it (src/index.ts bundled in memory); the
// peers as a Node app imports them (their published ESM builds from node_modules).
// Shared machines are noisy: every section runs a warm-up round that is dropped, then
// interleaves the SDKs and the baseline round by round, rotating their order, and reports
// medians and p90s over every client of every measured round.
import os from 'node:os';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyBaseline, fmt, interleave, median, now, quantile, ROUNDS, runReport, settle } from './bench-measure.mjs';
import { load } from './bench-kit.mjs';

const INIT_BATCH = 200; // clients timed one by one per round, per SDK
const LOOPBACK_BATCH = 40; // the same over a real socket
const HEAP_CLIENTS = 200;
const HEAP_ROUNDS = 5;
const FLAGS = 100;
const TARGET_RATIO = 0.75; // issue 22: flagplane's init→ready median ≤ 0.75× Unleash's
const WATCHDOG_MS = 300_000;
// Unleash 3.8.2 starts a metrics timer 2 s after start() that stop() cannot cancel (see
// stopUnleash): stopped clients are stopped a second time once that timer has fired.
const UNLEASH_METRICS_INITIAL_MS = 2_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------
// Fixtures: the same 100 boolean flags, all on, in each SDK's own wire format.

const keys = Array.from({ length: FLAGS }, (_, i) => `flag-${i}`);

/** flagplane: a schema-1 snapshot (GET /sdk/v1/snapshot), as scripts/bench.mjs makeBootstrap. */
const flagplaneSnapshot = {
  schemaVersion: 1,
  version: 1,
  environmentId: 'bench',
  flags: Object.fromEntries(
    keys.map((key) => [key, { on: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: key, clientSide: true }]),
  ),
};
/** Unleash: the frontend API's answer (GET /api/frontend), every toggle evaluated by the server. */
const unleashToggles = {
  toggles: keys.map((name) => ({ name, enabled: true, variant: { name: 'disabled', enabled: false }, impressionData: false })),
};
/** GrowthBook: the features endpoint's answer (GET /api/features/<clientKey>). */
const growthbookPayload = { features: Object.fromEntries(keys.map((key) => [key, { defaultValue: true }])) };

const BODY = {
  flagplane: JSON.stringify(flagplaneSnapshot),
  unleash: JSON.stringify(unleashToggles),
  growthbook: JSON.stringify(growthbookPayload),
};

/** Compiles `value` into a function returning it as a fresh object literal, as an app's source would. */
const literal = (value) => new Function(`return ${JSON.stringify(value)};`);
const makeSnapshot = literal(flagplaneSnapshot);
const makeToggles = literal(unleashToggles.toggles);
const makeGrowthbookPayload = literal(growthbookPayload);
const makeValues = literal(Object.fromEntries(keys.map((key) => [key, true])));

const FLAGPLANE_KEY = 'svc_sdk_client_bench_0001';
const FLAGPLANE_URL = 'https://flags.invalid';
const UNLEASH_URL = 'https://unleash.invalid/api/frontend';
const UNLEASH_KEY = 'default:development.bench0001';
const GROWTHBOOK_HOST = 'https://growthbook.invalid';
const GROWTHBOOK_KEY = 'sdk-bench0001';

const ETAG = '"bench-1"';
const headerOf = (name) => {
  const lower = name.toLowerCase();
  return lower === 'etag' ? ETAG : lower === 'content-type' ? 'application/json' : null;
};

/** flagplane's HttpTransport: the snapshot GET answered at once with BODY.flagplane, event POSTs with a 202. */
const answeringTransport = (request) =>
  Promise.resolve(
    request.method === 'POST'
      ? { kind: 'response', status: 202, header: () => null, body: '' }
      : { kind: 'response', status: 200, header: headerOf, body: BODY.flagplane },
  );
/** A transport that never answers a snapshot GET until it is aborted (bench.mjs's), for clients started from data. */
const silentTransport = (request) =>
  request.method === 'POST'
    ? Promise.resolve({ kind: 'response', status: 202, header: () => null, body: '' })
    : new Promise((resolve) => request.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true }));

/** The least a `fetch` Response needs to be for the peers: status, headers.get, json() and text() of a string body. */
const fakeResponse = (body, status = 200) => ({
  ok: status >= 200 && status < 300,
  status,
  headers: { get: headerOf },
  json: () => Promise.resolve(JSON.parse(body)),
  text: () => Promise.resolve(body),
});
/** A `fetch` that answers every request at once with `body` (a POST with an empty 202). */
const answeringFetch = (body) => (url, init) => Promise.resolve(init?.method === 'POST' ? fakeResponse('', 202) : fakeResponse(body));
/** A `fetch` that answers nothing until its signal aborts (as fetch would), for clients started from data. */
const silentFetch = (url, init) =>
  new Promise((resolve, reject) => {
    const signal = init?.signal;
    signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true });
  });

// ---------------------------------------------------------------------------------------
// Each SDK: create one client with default options, wait for its ready signal, close it.

/** flagplane: createClient + await ready(); only sdkKey, baseUrl, the transport and the bootstrap are given. */
function flagplaneStarter({ createClient }, { transport, bootstrap, baseUrl = FLAGPLANE_URL } = {}) {
  return {
    async start() {
      const options = { sdkKey: FLAGPLANE_KEY, baseUrl };
      if (transport) options.transport = transport;
      if (bootstrap) options.bootstrap = makeSnapshot();
      return () => {
        const client = createClient(options);
        return client.ready().then((result) => {
          if (result?.status !== 'ready') throw new Error(`flagplane ready() gave ${JSON.stringify(result)}`);
          return client;
        });
      };
    },
    close: (clients) => {
      const closing = [];
      // Emptied as it goes (bench.mjs closeAll): an abort error's stack can hold the array.
      while (clients.length > 0) closing.push(clients.pop().close());
      return Promise.race([Promise.all(closing), sleep(5000)]);
    },
  };
}

// Unleash clients stopped less than 2 s after start() still have the metrics timer pending.
let pendingUnleash = [];
/**
 * Unleash 3.8.2's stop() clears the refresh interval and the metrics interval, but not the
 * setTimeout(metricsIntervalInitial = 2 s) that start() schedules to begin the metrics
 * interval: a client stopped within 2 s starts a 30 s setInterval afterwards that nothing
 * clears, which keeps the process alive and the client reachable. The bench stops such clients
 * again once that timeout has fired (this is not timed). `wait` waits for all of them.
 */
async function restopUnleash(wait) {
  if (wait && pendingUnleash.length > 0) {
    const last = pendingUnleash[pendingUnleash.length - 1].at;
    await sleep(Math.max(0, last + UNLEASH_METRICS_INITIAL_MS + 200 - Date.now()));
  }
  const due = Date.now() - UNLEASH_METRICS_INITIAL_MS - 200;
  const keep = [];
  for (const entry of pendingUnleash) {
    if (entry.at <= due) entry.client.stop();
    else keep.push(entry);
  }
  pendingUnleash = keep;
}

/** Unleash: new UnleashClient({ url, clientKey, appName, fetch?, bootstrap? }) + start() + the 'ready' event. */
function unleashStarter({ UnleashClient }, { fetch, bootstrap, url = UNLEASH_URL } = {}) {
  return {
    async start() {
      await restopUnleash(false);
      return () => {
        const options = { url, clientKey: UNLEASH_KEY, appName: 'bench' };
        if (fetch) options.fetch = fetch;
        if (bootstrap) options.bootstrap = makeToggles();
        const client = new UnleashClient(options);
        const ready = new Promise((resolve) => client.once('ready', resolve));
        client.start();
        return ready.then(() => client);
      };
    },
    close: (clients) => {
      const at = Date.now();
      while (clients.length > 0) {
        const client = clients.pop();
        client.stop();
        pendingUnleash.push({ client, at });
      }
    },
  };
}

/**
 * GrowthBook: new GrowthBook({ apiHost, clientKey }) + await init() (the fetch), or + initSync
 * ({ payload }) / await init({ payload }) from data. Its feature repository caches a payload per
 * apiHost and clientKey for the whole process (60 s fresh): `cold` clears that cache before each
 * client (outside the timing), so that each one fetches, as each flagplane and Unleash client does.
 */
function growthbookStarter({ GrowthBook, clearCache }, { network, cold = true, sync = false, apiHost = GROWTHBOOK_HOST } = {}) {
  return {
    async start() {
      return async () => {
        if (network && cold) {
          await clearCache();
          return { next: () => initGrowthbook() };
        }
        return initGrowthbook();
      };
      function initGrowthbook() {
        const gb = new GrowthBook({ apiHost, clientKey: GROWTHBOOK_KEY });
        if (!network && sync) {
          gb.initSync({ payload: makeGrowthbookPayload() });
          return gb;
        }
        return gb.init(network ? undefined : { payload: makeGrowthbookPayload() }).then((result) => {
          if (!result?.success) throw new Error(`GrowthBook init() gave ${JSON.stringify({ ...result, error: String(result?.error) })}`);
          return gb;
        });
      }
    },
    close: (clients) => {
      while (clients.length > 0) clients.pop().destroy();
    },
  };
}

/**
 * Times `batch` clients one by one (creation to ready signal, in µs), then closes them all
 * outside the timing. A starter's `create` may first return { next } after set-up that is not
 * timed (GrowthBook's cache clearing): the timing starts again at `next()`.
 */
function timedBatch(starter, batch) {
  return async () => {
    const create = await starter.start();
    const us = new Array(batch);
    const clients = [];
    for (let i = 0; i < batch; i++) {
      let start = now();
      let client = await create();
      if (client && typeof client.next === 'function') {
        start = now();
        client = await client.next();
      }
      us[i] = (now() - start) / 1000;
      clients.push(client);
    }
    await starter.close(clients);
    return us;
  };
}

/** The baseline: a plain-object copy of the same 100 values, `await` included. */
const copyBatch = (batch) => copyBaseline(makeValues(), batch);

/** What each wire format costs before any SDK work: `await Promise.resolve(JSON.parse(body))`. */
function parseBatch(body, batch) {
  return async () => {
    const us = new Array(batch);
    let sink = 0;
    for (let i = 0; i < batch; i++) {
      const start = now();
      const parsed = await Promise.resolve(JSON.parse(body));
      us[i] = (now() - start) / 1000;
      sink += parsed ? 1 : 0;
    }
    return sink < 0 ? [] : us;
  };
}

const row = (name, xs, base, extra = {}) => ({
  name,
  value: `${fmt(median(xs))} µs (p90 ${fmt(quantile(xs, 0.9))})`,
  baseline: base ? `${fmt(median(base))} µs (object copy)` : '',
  ratio: base ? median(xs) / median(base) : undefined,
  median: median(xs),
  ...extra,
});

/** The issue-22 line: flagplane's median ÷ Unleash's, ≤ 0.75. */
const targetRow = (label, flagplane, unleash) => {
  const ratio = median(flagplane) / median(unleash);
  return {
    name: `  ${label}: flagplane ÷ Unleash`,
    value: `${ratio.toFixed(2)}×`,
    baseline: `${fmt(median(flagplane))} / ${fmt(median(unleash))} µs`,
    target: `≤ ${TARGET_RATIO}× Unleash (issue 22)`,
    ok: ratio <= TARGET_RATIO,
  };
};

// ---------------------------------------------------------------------------------------
// Sections: each returns rows { name, value, baseline, ratio?, target?, ok? } for printRow.

/** 1. From the network: each SDK's first fetch answered at once by an in-process fake. */
async function fromNetwork(sdks) {
  const { flagplane, unleash, growthbook } = sdks;
  growthbook.setPolyfills({ fetch: answeringFetch(BODY.growthbook) });
  const realFetch = globalThis.fetch;
  const fakeGlobalFetch = answeringFetch(BODY.flagplane);
  // flagplane's default transport calls the global fetch at each request: swapped for its case only.
  const viaGlobalFetch = flagplaneStarter(flagplane, {});
  const globalFetchCase = timedBatch(
    {
      start: () => {
        globalThis.fetch = fakeGlobalFetch;
        return viaGlobalFetch.start();
      },
      close: async (clients) => {
        try {
          await viaGlobalFetch.close(clients);
        } finally {
          globalThis.fetch = realFetch;
        }
      },
    },
    INIT_BATCH,
  );
  let samples;
  try {
    samples = await interleave({
      flagplane: timedBatch(flagplaneStarter(flagplane, { transport: answeringTransport }), INIT_BATCH),
      unleash: timedBatch(unleashStarter(unleash, { fetch: answeringFetch(BODY.unleash) }), INIT_BATCH),
      growthbook: timedBatch(growthbookStarter(growthbook, { network: true }), INIT_BATCH),
      flagplaneFetch: globalFetchCase,
      growthbookWarm: timedBatch(growthbookStarter(growthbook, { network: true, cold: false }), INIT_BATCH),
      copy: copyBatch(INIT_BATCH),
      parseFlagplane: parseBatch(BODY.flagplane, INIT_BATCH),
      parseUnleash: parseBatch(BODY.unleash, INIT_BATCH),
      parseGrowthbook: parseBatch(BODY.growthbook, INIT_BATCH),
    });
  } finally {
    globalThis.fetch = realFetch;
    await growthbook.clearCache();
  }
  const base = samples.copy;
  return [
    row('flagplane: transport answers at once', samples.flagplane, base),
    row('Unleash: fetch option answers at once', samples.unleash, base),
    row('GrowthBook: fetch polyfill, cache cleared', samples.growthbook, base),
    targetRow('from the network', samples.flagplane, samples.unleash),
    row('  flagplane: default transport, fake fetch', samples.flagplaneFetch, base),
    row('  GrowthBook: its process cache warm', samples.growthbookWarm, base),
    row('  baseline: await Promise.resolve({...})', base, base),
    row('  JSON.parse of flagplane\'s body alone', samples.parseFlagplane, base),
    row('  JSON.parse of Unleash\'s body alone', samples.parseUnleash, base),
    row('  JSON.parse of GrowthBook\'s body alone', samples.parseGrowthbook, base),
  ];
}

/** 2. From data given at construction; every fetch the SDK makes never answers (until aborted). */
async function fromData(sdks) {
  const { flagplane, unleash, growthbook } = sdks;
  growthbook.setPolyfills({ fetch: silentFetch });
  const samples = await interleave({
    flagplane: timedBatch(flagplaneStarter(flagplane, { transport: silentTransport, bootstrap: true }), INIT_BATCH),
    unleash: timedBatch(unleashStarter(unleash, { fetch: silentFetch, bootstrap: true }), INIT_BATCH),
    growthbookSync: timedBatch(growthbookStarter(growthbook, { network: false, sync: true }), INIT_BATCH),
    growthbookInit: timedBatch(growthbookStarter(growthbook, { network: false }), INIT_BATCH),
    copy: copyBatch(INIT_BATCH),
  });
  const base = samples.copy;
  return [
    row('flagplane: bootstrap', samples.flagplane, base),
    row('Unleash: bootstrap', samples.unleash, base),
    row('GrowthBook: initSync({ payload })', samples.growthbookSync, base),
    row('GrowthBook: await init({ payload })', samples.growthbookInit, base),
    targetRow('from data', samples.flagplane, samples.unleash),
    row('  baseline: await Promise.resolve({...})', base, base),
  ];
}

/** 1b. From a real loopback node:http server, one route per SDK's format; every SDK on the global fetch. */
async function loopback(sdks) {
  const { flagplane, unleash, growthbook } = sdks;
  const server = http.createServer((request, response) => {
    const path = request.url.split('?')[0];
    if (request.method === 'POST') {
      request.resume();
      response.writeHead(202).end();
      return;
    }
    const body = path === '/sdk/v1/snapshot' ? BODY.flagplane : path === '/api/frontend' ? BODY.unleash : path.startsWith('/api/features/') ? BODY.growthbook : null;
    if (body === null) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json', etag: ETAG }).end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  growthbook.setPolyfills({ fetch: globalThis.fetch.bind(globalThis) });
  try {
    const samples = await interleave({
      flagplane: timedBatch(flagplaneStarter(flagplane, { baseUrl: origin }), LOOPBACK_BATCH),
      unleash: timedBatch(unleashStarter(unleash, { url: `${origin}/api/frontend` }), LOOPBACK_BATCH),
      growthbook: timedBatch(growthbookStarter(growthbook, { network: true, apiHost: origin }), LOOPBACK_BATCH),
    });
    return [
      row('flagplane: default transport (fetch)', samples.flagplane),
      row('Unleash: default fetch', samples.unleash),
      row('GrowthBook: fetch, cache cleared', samples.growthbook),
      targetRow('loopback', samples.flagplane, samples.unleash),
    ];
  } finally {
    await growthbook.clearCache();
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** 3. Heap per live client, 100 flags from the (fake) network, 200 clients per SDK, gc between. */
async function heap(sdks) {
  const { flagplane, unleash, growthbook } = sdks;
  growthbook.setPolyfills({ fetch: answeringFetch(BODY.growthbook) });
  const starters = {
    flagplane: flagplaneStarter(flagplane, { transport: answeringTransport }),
    unleash: unleashStarter(unleash, { fetch: answeringFetch(BODY.unleash) }),
    growthbook: growthbookStarter(growthbook, { network: true }),
  };
  const kb = (bytes) => bytes / HEAP_CLIENTS / 1024;
  const results = { flagplane: [], unleash: [], growthbook: [], values: [], body: { flagplane: [], unleash: [], growthbook: [] } };
  const names = Object.keys(starters);
  for (let round = 0; round <= HEAP_ROUNDS; round++) {
    {
      await restopUnleash(true);
      const h0 = await settle();
      let held = Array.from({ length: HEAP_CLIENTS }, makeValues);
      const h1 = await settle();
      if (round > 0) results.values.push(kb(h1 - h0));
      held = held.length;
      for (const name of names) {
        const b0 = await settle();
        let bodies = Array.from({ length: HEAP_CLIENTS }, () => JSON.parse(BODY[name]));
        const b1 = await settle();
        if (round > 0) results.body[name].push(kb(b1 - b0));
        bodies = bodies.length;
      }
    }
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length];
      const starter = starters[name];
      await restopUnleash(true); // no Unleash client of an earlier batch may still be reachable
      const create = await starter.start();
      const before = await settle();
      let clients = [];
      for (let i = 0; i < HEAP_CLIENTS; i++) {
        let client = await create();
        if (client && typeof client.next === 'function') client = await client.next();
        clients.push(client);
      }
      const live = await settle();
      await starter.close(clients);
      clients = null;
      if (round > 0) results[name].push(kb(live - before));
    }
  }
  await restopUnleash(true);
  await growthbook.clearCache();
  const values = median(results.values);
  const rows = [];
  for (const [name, label] of [['flagplane', 'flagplane'], ['unleash', 'Unleash'], ['growthbook', 'GrowthBook']]) {
    const live = median(results[name]);
    const body = median(results.body[name]);
    rows.push(
      { name: `${label}: heap per live client`, value: `${fmt(live)} KB`, baseline: `${fmt(values)} KB (100 values)`, ratio: live / values },
      { name: `  its parsed wire body alone`, value: `${fmt(body)} KB`, baseline: '' },
      { name: `  the client's own (live − body)`, value: `${fmt(live - body)} KB`, baseline: `${fmt(values)} KB (100 values)`, ratio: (live - body) / values },
    );
  }
  return rows;
}

/**
 * What Unleash's stop() leaves, read from each client 2.3 s after it (its `timerRef` is the
 * refresh interval, `metrics.timer` the metrics interval; TypeScript-private, plain properties):
 * 50 clients stopped after all 50 were ready, and 50 stopped in their 'ready' listener.
 */
async function unleashAfterStop({ unleash }) {
  const COUNT = 50;
  const create = () => {
    const client = new unleash.UnleashClient({ url: UNLEASH_URL, clientKey: UNLEASH_KEY, appName: 'bench', fetch: answeringFetch(BODY.unleash) });
    const ready = new Promise((resolve) => client.once('ready', resolve));
    client.start();
    return ready.then(() => client);
  };
  const later = [];
  for (let i = 0; i < COUNT; i++) later.push(await create());
  for (const client of later) client.stop();
  const atOnce = [];
  for (let i = 0; i < COUNT; i++) {
    const client = new unleash.UnleashClient({ url: UNLEASH_URL, clientKey: UNLEASH_KEY, appName: 'bench', fetch: answeringFetch(BODY.unleash) });
    await new Promise((resolve) => {
      client.once('ready', () => {
        client.stop();
        resolve();
      });
      client.start();
    });
    atOnce.push(client);
  }
  await sleep(UNLEASH_METRICS_INITIAL_MS + 300);
  const left = (clients) => {
    const metrics = clients.filter((client) => client.metrics?.timer !== undefined).length;
    const refresh = clients.filter((client) => client.timerRef !== undefined).length;
    return `metrics ${metrics}, refresh ${refresh} of ${COUNT}`;
  };
  const rows = [
    { name: 'Unleash: running timers 2.3 s after stop()', value: left(later), baseline: 'stopped after all were ready' },
    { name: '', value: left(atOnce), baseline: "stop() in the 'ready' listener" },
  ];
  for (const client of [...later, ...atOnce]) client.stop(); // a 2nd stop() clears both
  rows.push({ name: '  after a 2nd stop()', value: left([...later, ...atOnce]).replace(`of ${COUNT}`, `of ${2 * COUNT}`), baseline: '' });
  return rows;
}

// ---------------------------------------------------------------------------------------

function printRow(r) {
  const ratio = r.ratio === undefined || !Number.isFinite(r.ratio) ? '' : `${r.ratio >= 10 ? r.ratio.toFixed(0) : r.ratio.toFixed(1)}×`;
  const verdict = r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS';
  console.log(`${r.name.padEnd(46)} ${r.value.padEnd(24)} ${r.baseline.padEnd(26)} ${ratio.padStart(6)}  ${(r.target ?? '').padEnd(28)} ${verdict}`.trimEnd());
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** A package's version, read from its package.json (not every package exports that file). */
const version = (name) => {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return '?';
  }
};

async function main() {
  const cpus = os.cpus();
  console.log(`flagplane bench:peers — ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${os.platform()} ${os.arch()}, node ${process.version}`);
  console.log(`peers: unleash-proxy-client ${version('unleash-proxy-client')}, @growthbook/growthbook ${version('@growthbook/growthbook')}; ${FLAGS} boolean flags; all default options`);
  console.log(
    `medians and p90s over ${ROUNDS} interleaved rounds after a warm-up (${INIT_BATCH} clients a round per SDK, ${LOOPBACK_BATCH} over loopback); heap: median of ${HEAP_ROUNDS} rounds of ${HEAP_CLIENTS} clients`,
  );
  console.log(`wire bodies: flagplane ${BODY.flagplane.length} B, Unleash ${BODY.unleash.length} B, GrowthBook ${BODY.growthbook.length} B`);
  const started = Date.now();
  const [flagplane, unleash, growthbook] = await Promise.all([load('src/index.ts'), import('unleash-proxy-client'), import('@growthbook/growthbook')]);
  const sdks = { flagplane, unleash, growthbook };
  const header = (title) => {
    console.log(`\n${title}`);
    console.log(`${'measure'.padEnd(46)} ${'value'.padEnd(24)} ${'baseline'.padEnd(26)} ${'×base'.padStart(6)}  ${'target'.padEnd(28)} verdict`);
  };
  const all = [
    [fromNetwork, 'init→ready from the network: constructor to ready signal, first fetch answered at once in-process (µs)'],
    [fromData, 'init→ready from data given at construction; fetches never answer (µs)'],
    [loopback, 'init→ready over a real loopback node:http server, same process (µs)'],
    [heap, 'heap per live client, 100 flags from the fake network'],
    [unleashAfterStop, "what Unleash's stop() leaves"],
  ];
  // `node scripts/bench-peers.mjs fromData heap` runs only the sections named.
  const sections = process.argv.length > 2 ? all.filter(([section]) => process.argv.includes(section.name)) : all;
  for (const [section, title] of sections) {
    header(`${title} [${section.name}]`);
    try {
      for (const r of await section(sdks)) printRow(r);
    } catch (error) {
      printRow({ name: section.name, value: `failed: ${error?.message ?? error}`, baseline: '' });
    }
  }
  await restopUnleash(true);
  console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s; a report, never a gate: the exit code is 0 whatever the verdicts`);
}

await runReport('bench:peers', main, { watchdogMs: WATCHDOG_MS });
// The peers may leave timers of their own behind (Unleash: see restopUnleash): exit anyway.
process.exit(0);
