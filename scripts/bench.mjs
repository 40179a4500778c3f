// `npm run bench`: what the client costs, next to plain-JavaScript baselines measured in the
// same process and run (docs/performance.md). It reports and never gates: the exit code is 0
// whatever the numbers are, and a section that fails prints its error and the rest still runs.
//
// The SDK is loaded only through its public entry, src/index.ts, bundled in memory.
// Shared machines are noisy: every section warms up first, interleaves the SDK with its
// baseline round by round (rotating their order), and reports medians over the rounds.
import os from 'node:os';
import { copyBaseline, fmt, interleave, median, now, quantile, ROUNDS, runReport, settle } from './bench-measure.mjs';
import { load, makeContext, makeFlag } from './bench-kit.mjs';

const INIT_BATCH = 500; // clients timed one by one per round, per variant
const HEAP_CLIENTS = 200;
const HEAP_ROUNDS = 5;
const READS = 300_000; // reads per round, per variant
const READ_ROUNDS = 21; // reads are cheap: more rounds steady the nanosecond baselines
const RULE_FLAGS = 1000;
const EVALUATIONS = 20_000; // evaluateFlag calls per round
const SET_CONTEXTS = 20; // setContext calls per round, per variant
const WATCHDOG_MS = 150_000;

const TARGET = {
  initMedianUs: 10,
  heapKb: 15,
  retainedKb: 1, // "≈ 0": under 1 KB per client, the noise of a 200-client heap delta
  readRatio: 3,
  firstEvaluationNs: 2000, // bench:eval's target
  setContextUs: 200,
};


// ---------------------------------------------------------------------------------------
// Fixtures

const BENCH_KEY = 'svc_sdk_client_bench_0001';
const BASE_URL = 'https://flags.invalid';

/** A snapshot GET that never answers until it is aborted (as fetch would); event POSTs get a 202. */
const transport = (request) =>
  request.method === 'POST'
    ? Promise.resolve({ kind: 'response', status: 202, header: () => null, body: '' })
    : new Promise((resolve) => request.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true }));

const clientOptions = (bootstrap, extra) => ({
  sdkKey: BENCH_KEY,
  baseUrl: BASE_URL,
  bootstrap,
  transport,
  // Default options otherwise: in Node, no tab sync and no localStorage cache (a page's defaults).
  pollInterval: 0,
  ...extra,
});

/** Compiles `value` into a function returning it as a fresh object literal, as an app's source would. */
const literal = (value) => new Function(`return ${JSON.stringify(value)};`);

/** A schema-1 snapshot of 100 boolean flags, a fresh literal each call. */
const makeBootstrap = literal({
  schemaVersion: 1,
  version: 1,
  environmentId: 'bench',
  flags: Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [
      `flag-${i}`,
      { on: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: `flag-${i}`, clientSide: true },
    ]),
  ),
});

/** The baseline's data: the same 100 values in a plain object, a fresh literal each call. */
const makeValues = literal(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`flag-${i}`, true])));

/** A context object the SDK has never seen, with the attribute values of `c`. */
const fresh = (c) => ({ userId: c.userId, attributes: { ...c.attributes }, segmentIds: [...c.segmentIds] });

const ruleKeys = Array.from({ length: RULE_FLAGS }, (_, i) => `flag-${i}`);
const ruleSnapshotJson = JSON.stringify({ schemaVersion: 1, version: 1, environmentId: 'bench', flags: Object.fromEntries(ruleKeys.map((key, i) => [key, makeFlag(i)])) });
/** 1,000 five-rule flags, freshly parsed each call as a snapshot from the network is. */
const makeRuleSnapshot = () => JSON.parse(ruleSnapshotJson);

// The baseline of a first evaluation: the same five rules written by hand for this flag shape,
// on the same context, with the rollout on a 32-bit FNV-1a hash. No validation, no caches.
const hand = Array.from({ length: RULE_FLAGS }, (_, i) => ({ minor: i % 10, cohort: `cohort-${i}`, salt: `flag-${i}` }));
const EU = new Set(['FR', 'DE', 'ES', 'IT', 'NL']);
const CUTOFF = Date.parse('2024-01-01T00:00:00Z');
function fnv(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
function byHand(rule, context) {
  const a = context.attributes;
  if (a.email.endsWith('@example.com') || a.email.endsWith('@example.org')) return 'treatment';
  const [major, minor, patch] = a.appVersion.split('.').map(Number);
  if (major > 3 || (major === 3 && (minor > rule.minor || (minor === rule.minor && patch > 0)))) return 'treatment';
  if (context.segmentIds.includes('beta-testers') || context.segmentIds.includes(rule.cohort)) return fnv(`${rule.salt}.${context.userId}`) % 100000 < 50000 ? 'treatment' : 'holdout';
  if (EU.has(a.country) && Date.parse(a.signupDate) > CUTOFF) return 'holdout';
  if (a.sessions >= 100 && a.plan === undefined) return 'treatment';
  return fnv(`${rule.salt}.${context.userId}`) % 100000 < 90000 ? 'control' : 'treatment';
}

/**
 * Closes every client and empties the array. Emptied as it goes: close() aborts requests, and
 * an abort error's stack holds the frames' receivers, so `clients.map(c => c.close())` would let
 * any one closed client that is still referenced keep the whole array alive.
 */
function closeAll(clients) {
  const closing = [];
  while (clients.length > 0) closing.push(clients.pop().close());
  return Promise.race([Promise.all(closing), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
}

// ---------------------------------------------------------------------------------------
// Sections: each returns rows { name, value, baseline, ratio?, target?, ok? } for printRow.

/** 1. createClient + await ready() with a 100-flag bootstrap, one client at a time. */
async function initToReady({ createClient }) {
  const values = makeValues();
  const initBatch = (extra) => async () => {
    const options = Array.from({ length: INIT_BATCH }, () => clientOptions(makeBootstrap(), extra));
    const clients = new Array(INIT_BATCH);
    const us = new Array(INIT_BATCH);
    for (let i = 0; i < INIT_BATCH; i++) {
      const start = now();
      const client = createClient(options[i]);
      await client.ready();
      us[i] = (now() - start) / 1000;
      clients[i] = client;
    }
    await closeAll(clients);
    return us;
  };
  const samples = await interleave({
    on: initBatch({}),
    off: initBatch({ events: false }),
    tabs: initBatch({ syncTabs: true }),
    copy: copyBaseline(values, INIT_BATCH),
  });
  const base = median(samples.copy);
  const row = (name, xs) => ({
    name,
    value: `${fmt(median(xs))} µs (p90 ${fmt(quantile(xs, 0.9))})`,
    baseline: `${fmt(base)} µs (p90 ${fmt(quantile(samples.copy, 0.9))})`,
    ratio: median(xs) / base,
    target: `≤ ${TARGET.initMedianUs} µs median`,
    ok: median(xs) <= TARGET.initMedianUs,
  });
  return [
    row('init→ready, 100 flags, events on', samples.on),
    row('init→ready, 100 flags, events off', samples.off),
    // The default in a browser page, asked for here: what a page pays for it.
    row('init→ready, 100 flags, tab sync on', samples.tabs),
  ];
}

/** 2. Heap per live client, and what close() leaves behind. */
async function heap({ createClient }) {
  const kb = (bytes) => bytes / HEAP_CLIENTS / 1024;
  const rounds = [];
  for (let round = 0; round <= HEAP_ROUNDS; round++) {
    const h0 = await settle();
    let held = Array.from({ length: HEAP_CLIENTS }, makeBootstrap);
    const hBootstraps = await settle();
    held = null;
    const h1 = await settle();
    held = Array.from({ length: HEAP_CLIENTS }, makeValues);
    const hValues = await settle();
    held = null;
    const h2 = await settle();
    // Each client gets its own bootstrap, built inline as an app's literal would be.
    let clients = Array.from({ length: HEAP_CLIENTS }, () => createClient(clientOptions(makeBootstrap(), {})));
    await Promise.all(clients.map((client) => client.ready()));
    const h3 = await settle();
    await closeAll(clients);
    clients = null;
    // One timer turn first: what close() scheduled may still hold a client for a moment.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const h4 = await settle();
    if (round > 0) rounds.push({ bootstrap: kb(hBootstraps - h0), values: kb(hValues - h1), live: kb(h3 - h2), retained: kb(h4 - h2) });
  }
  const pick = (field) => median(rounds.map((r) => r[field]));
  const live = pick('live');
  const bootstrap = pick('bootstrap');
  const values = pick('values');
  return [
    { name: 'heap per live client, with its bootstrap', value: `${fmt(live)} KB`, baseline: `${fmt(values)} KB (100 values)`, ratio: live / values },
    { name: '  the bootstrap object alone', value: `${fmt(bootstrap)} KB`, baseline: '' },
    {
      name: '  the client\'s own (live − bootstrap)',
      value: `${fmt(live - bootstrap)} KB`,
      baseline: `${fmt(values)} KB (100 values)`,
      ratio: (live - bootstrap) / values,
      target: `≤ ${TARGET.heapKb} KB`,
      ok: live - bootstrap <= TARGET.heapKb,
    },
    { name: 'retained per client after close()', value: `${fmt(pick('retained'))} KB`, baseline: '', target: '≈ 0 (< 1 KB)', ok: Math.abs(pick('retained')) < TARGET.retainedKb },
  ];
}

/**
 * 3. Known and unknown reads, events on and off, against Map.get and a plain-object read.
 * Known reads go round the 100 keys: V8 seeds string hashes per process, so the cost of one
 * key ('flag-42') moves with its hash bucket from one run to the next (Map.get('flag-42')
 * alone measured 8 to 18 ns between runs); over all 100 keys it is steady. 'flag-42' alone is
 * reported too.
 */
async function reads({ createClient }) {
  const on = createClient(clientOptions(makeBootstrap(), {}));
  const off = createClient(clientOptions(makeBootstrap(), { events: false }));
  await Promise.all([on.ready(), off.ready()]);
  const keys = Array.from({ length: 100 }, (_, i) => `flag-${i}`);
  const map = new Map(Object.entries(makeValues()));
  const object = makeValues();
  // One loop per case, written out, so that each call site stays monomorphic as in an app.
  const timed = (loop) => () => {
    const start = now();
    const sink = loop();
    const ns = (now() - start) / READS;
    return sink < 0 ? 0 : ns;
  };
  const samples = await interleave(
    {
      map: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (map.get(keys[i % 100]) === true) s++; return s; }),
      object: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (object[keys[i % 100]] === true) s++; return s; }),
      knownOn: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (on.get(keys[i % 100], false) === true) s++; return s; }),
      knownOff: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (off.get(keys[i % 100], false) === true) s++; return s; }),
      map42: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (map.get('flag-42') === true) s++; return s; }),
      known42: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (on.get('flag-42', false) === true) s++; return s; }),
      mapMiss: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (map.get('nope') === undefined) s++; return s; }),
      unknownOn: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (on.get('nope', false) === false) s++; return s; }),
      unknownOff: timed(() => { let s = 0; for (let i = 0; i < READS; i++) if (off.get('nope', false) === false) s++; return s; }),
    },
    READ_ROUNDS,
  );
  await closeAll([on, off]);
  const m = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]));
  const row = (name, value, base, baseName, target) => ({
    name,
    value: `${fmt(value)} ns`,
    baseline: `${fmt(base)} ns (${baseName})`,
    ratio: value / base,
    ...(target && { target: `≤ ${TARGET.readRatio}× Map.get`, ok: value <= TARGET.readRatio * base }),
  });
  return [
    row('get(known), events on', m.knownOn, m.map, 'Map.get', true),
    row('get(known), events off', m.knownOff, m.map, 'Map.get'),
    row("  get('flag-42') alone, events on", m.known42, m.map42, "Map.get('flag-42')"),
    row('  plain object[key] (baseline)', m.object, m.map, 'Map.get'),
    row("get('nope'), events on", m.unknownOn, m.mapMiss, 'Map.get miss'),
    row("get('nope'), events off", m.unknownOff, m.mapMiss, 'Map.get miss'),
  ];
}

/**
 * 6. Per-request evaluation: one client holding 1,000 five-rule flags (events on), a view per
 * request with a context never seen before, five flags read, against evaluateFlag on the same
 * five flags and contexts. Then the heap a view holds after those reads.
 */
async function forContext({ createClient, evaluateFlag, forContext: viewOf }) {
  const client = createClient(clientOptions(makeRuleSnapshot(), {}));
  await client.ready();
  if (typeof viewOf !== 'function') throw new Error('the package has no forContext');
  const flags = Array.from({ length: RULE_FLAGS }, (_, i) => makeFlag(i));
  const pool = Array.from({ length: RULE_FLAGS }, (_, i) => makeContext(i, true));
  const REQUESTS = 2_000;
  const READ_KEYS = 5;
  let offset = 0;
  const batch = () => Array.from({ length: REQUESTS }, (_, i) => fresh(pool[(offset++ * 7 + i) % RULE_FLAGS]));
  const samples = await interleave({
    view: () => {
      const contexts = batch();
      let sink = 0;
      const start = now();
      for (let i = 0; i < REQUESTS; i++) {
        const view = viewOf(client, contexts[i]);
        for (let k = 0; k < READ_KEYS; k++) if (view.get(ruleKeys[(i + k * 100) % RULE_FLAGS], 'control') === 'control') sink++;
      }
      const us = (now() - start) / REQUESTS / 1000;
      return sink < 0 ? 0 : us;
    },
    evaluate: () => {
      const contexts = batch();
      let sink = 0;
      const start = now();
      for (let i = 0; i < REQUESTS; i++) {
        for (let k = 0; k < READ_KEYS; k++) {
          if (evaluateFlag(flags[(i + k * 100) % RULE_FLAGS], contexts[i], contexts[i].userId).kind === 'served') sink++;
        }
      }
      const us = (now() - start) / REQUESTS / 1000;
      return sink < 0 ? 0 : us;
    },
  });
  const VIEWS = 5_000;
  const contexts = Array.from({ length: VIEWS }, (_, i) => fresh(pool[i % RULE_FLAGS]));
  const before = await settle();
  let views = contexts.map((context, i) => {
    const view = viewOf(client, context);
    for (let k = 0; k < READ_KEYS; k++) view.get(ruleKeys[(i + k * 100) % RULE_FLAGS], 'control');
    return view;
  });
  const held = await settle();
  const perView = (held - before) / VIEWS;
  views = null;
  await closeAll([client]);
  const view = median(samples.view);
  const evaluate = median(samples.evaluate);
  return [
    {
      name: 'forContext: a view, 5 of 1,000 flags read',
      value: `${fmt(view)} µs`,
      baseline: `${fmt(evaluate)} µs (evaluateFlag × 5)`,
      ratio: view / evaluate,
    },
    { name: '  heap per view after those reads', value: `${fmt(perView / 1024)} KB`, baseline: '' },
  ];
}

/** 4. First evaluation of a five-rule flag: evaluateFlag, and a fresh client's first reads. */
async function firstEvaluation({ createClient, evaluateFlag }) {
  const flags = Array.from({ length: RULE_FLAGS }, (_, i) => makeFlag(i));
  const pool = Array.from({ length: RULE_FLAGS }, (_, i) => makeContext(i));
  const contexts = Array.from({ length: EVALUATIONS }, (_, i) => fresh(pool[(i * 7) % RULE_FLAGS]));
  const CLIENTS_PER_ROUND = 4;
  let round = 0;
  const cases = {
    hand: () => {
      let sink = 0;
      const start = now();
      for (let i = 0; i < EVALUATIONS; i++) if (byHand(hand[i % RULE_FLAGS], contexts[i]) === 'control') sink++;
      const ns = (now() - start) / EVALUATIONS;
      return sink < 0 ? 0 : ns;
    },
    // A few fresh clients a round, each with a snapshot parsed anew and a context of its own.
    client: async () => {
      const out = [];
      for (let k = 0; k < CLIENTS_PER_ROUND; k++) {
        const options = clientOptions(makeRuleSnapshot(), { events: false, context: fresh(pool[(round++ * 13) % RULE_FLAGS]) });
        const start = now();
        const client = createClient(options);
        await client.ready();
        const created = (now() - start) / RULE_FLAGS;
        const readStart = now();
        let sink = 0;
        for (const key of ruleKeys) if (client.get(key, 'control') === 'control') sink++;
        const read = (now() - readStart) / RULE_FLAGS;
        await closeAll([client]);
        if (sink >= 0) out.push({ created, read });
      }
      return out;
    },
  };
  if (typeof evaluateFlag === 'function') {
    const sample = evaluateFlag(flags[0], contexts[1], contexts[1].userId);
    if (sample.kind !== 'served') throw new Error(`benchmark flag is malformed: ${JSON.stringify(sample)}`);
    // Fresh context objects each round: a context the evaluator has seen is not a first evaluation.
    cases.evaluateFlag = () => {
      const batch = contexts.map(fresh);
      let sink = 0;
      const start = now();
      for (let i = 0; i < EVALUATIONS; i++) if (evaluateFlag(flags[i % RULE_FLAGS], batch[i], batch[i].userId).kind === 'served') sink++;
      const ns = (now() - start) / EVALUATIONS;
      return sink < 0 ? 0 : ns;
    };
  }
  const samples = await interleave(cases);
  const hand5 = median(samples.hand);
  const rows = [];
  const target = { target: `< ${TARGET.firstEvaluationNs} ns (bench:eval)` };
  if (samples.evaluateFlag) {
    const ns = median(samples.evaluateFlag);
    rows.push({ name: 'evaluateFlag, five rules, new context', value: `${fmt(ns)} ns`, baseline: `${fmt(hand5)} ns (by hand)`, ratio: ns / hand5, ...target, ok: ns < TARGET.firstEvaluationNs });
  } else rows.push({ name: 'evaluateFlag', value: 'not exported', baseline: '' });
  const read = median(samples.client.map((s) => s.read));
  const created = median(samples.client.map((s) => s.created));
  rows.push(
    { name: 'fresh client, first get() a key, no events', value: `${fmt(read)} ns`, baseline: `${fmt(hand5)} ns (by hand)`, ratio: read / hand5 },
    // Where an eager client pays for evaluation: creating it, not reading.
    { name: 'fresh client, init→ready ÷ 1,000 flags', value: `${fmt(created)} ns`, baseline: '' },
  );
  return rows;
}

/** 5. setContext on 1,000 five-rule flags, with none, 10, 50 or all of them read. */
async function setContext({ createClient, evaluateFlag }) {
  const a = makeContext(1);
  const b = makeContext(2);
  const variants = { 0: 'none read', 10: '10 read', 50: '50 read', all: 'all read (getAll)' };
  const clients = {};
  for (const n of Object.keys(variants)) {
    const client = createClient(clientOptions(makeRuleSnapshot(), { context: fresh(a) }));
    await client.ready();
    if (n === 'all') client.getAll();
    else for (let i = 0; i < Number(n); i++) client.get(ruleKeys[i], 'control');
    clients[n] = client;
  }
  // Alternating between two users, with a context object the client has never seen each call.
  const contexts = () => Array.from({ length: SET_CONTEXTS }, (_, i) => fresh(i % 2 ? a : b));
  const cases = {};
  for (const n of Object.keys(variants)) {
    cases[n] = () => {
      const batch = contexts();
      const start = now();
      for (const context of batch) clients[n].setContext(context);
      return (now() - start) / SET_CONTEXTS / 1000;
    };
  }
  // The baseline: the work a client cannot avoid, evaluating exactly the flags that were read.
  const flags = ruleKeys.map((_, i) => makeFlag(i));
  let holder = { context: fresh(a) };
  // Without an exported evaluateFlag there is no baseline to run.
  for (const n of typeof evaluateFlag === 'function' ? ['0', '10', '50', 'all'] : []) {
    cases[`base${n}`] = () => {
      const batch = contexts();
      let sink = 0;
      const start = now();
      for (const context of batch) {
        holder = { context };
        for (let i = 0; i < (n === 'all' ? RULE_FLAGS : Number(n)); i++) if (evaluateFlag(flags[i], context, context.userId).kind === 'served') sink++;
      }
      const us = (now() - start) / SET_CONTEXTS / 1000;
      return sink < 0 || !holder ? 0 : us;
    };
  }
  const samples = await interleave(cases);
  await closeAll(Object.values(clients));
  return Object.entries(variants).map(([n, label]) => {
    const us = median(samples[n]);
    const base = samples[`base${n}`] && median(samples[`base${n}`]);
    const gated = n === '0' || n === '10';
    return {
      name: `setContext, 1,000 flags, ${label}`,
      value: `${fmt(us)} µs`,
      baseline: base === undefined ? '' : `${fmt(base)} µs (evaluateFlag × ${n === 'all' ? RULE_FLAGS : n})`,
      ratio: base ? us / base : undefined,
      ...(gated && { target: `< ${TARGET.setContextUs} µs`, ok: us < TARGET.setContextUs }),
    };
  });
}

// ---------------------------------------------------------------------------------------

function printRow(r) {
  const ratio = r.ratio === undefined || !Number.isFinite(r.ratio) ? '' : `${r.ratio >= 10 ? r.ratio.toFixed(0) : r.ratio.toFixed(1)}×`;
  const verdict = r.ok === undefined ? '' : r.ok ? 'ok' : 'MISS';
  console.log(`${r.name.padEnd(44)} ${r.value.padEnd(26)} ${r.baseline.padEnd(32)} ${ratio.padStart(6)}  ${(r.target ?? '').padEnd(24)} ${verdict}`.trimEnd());
}

async function main() {
  const cpus = os.cpus();
  console.log(`flagplane bench — ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${os.platform()} ${os.arch()}, node ${process.version}`);
  console.log(`medians over ${ROUNDS} interleaved rounds after a warm-up (init: ${INIT_BATCH} clients a round; reads: ${READ_ROUNDS} rounds of ${READS}); heap: median of ${HEAP_ROUNDS} rounds of ${HEAP_CLIENTS} clients`);
  const started = Date.now();
  const sdk = await load('src/index.ts');
  await preflight(sdk);
  console.log('');
  console.log(`${'measure'.padEnd(44)} ${'flagplane'.padEnd(26)} ${'baseline'.padEnd(32)} ${'×base'.padStart(6)}  ${'target'.padEnd(24)} verdict`);
  const all = [initToReady, heap, reads, firstEvaluation, setContext, forContext];
  // `node scripts/bench.mjs heap reads` runs only the sections named.
  const sections = process.argv.length > 2 ? all.filter((section) => process.argv.includes(section.name)) : all;
  for (const section of sections) {
    try {
      for (const row of await section(sdk)) printRow(row);
    } catch (error) {
      printRow({ name: section.name, value: `failed: ${error?.message ?? error}`, baseline: '' });
    }
  }
  console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s; a report, never a gate: the exit code is 0 whatever the verdicts`);
}

/** One client first: a bootstrap that is not served would make every timed ready() wait for readyTimeout. */
async function preflight({ createClient }) {
  if (typeof createClient !== 'function') throw new Error('src/index.ts exports no createClient');
  const client = createClient(clientOptions(makeBootstrap(), { readyTimeout: 2000 }));
  const result = await client.ready();
  const value = client.get('flag-42', false);
  await closeAll([client]);
  if (result?.status !== 'ready' || result.source !== 'bootstrap' || value !== true) {
    throw new Error(`the bootstrap is not served at once (ready() gave ${JSON.stringify(result)}, flag-42 is ${JSON.stringify(value)})`);
  }
}

await runReport('bench', main, { watchdogMs: WATCHDOG_MS });
