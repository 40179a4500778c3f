// Micro-benchmark of the local evaluator: `node scripts/bench-eval.mjs`.
// It reports and never gates: the exit code is 0 whatever the numbers are.
import { load, makeContext, makeFlag } from './bench-kit.mjs';

const FLAG_COUNT = 1000;
const ITERATIONS = 100_000;
const RUNS = 7;
const TARGET_FIRST_EVALUATION_NS = 2000;

const TARGET_MEMOISED_READ_RATIO = 3;


/**
 * Median ns/op of `fn(i)` over RUNS runs of ITERATIONS calls, after a warm-up run.
 * `target` (ns), when given, is reported as met or not.
 */
function measure(name, fn, target) {
  let sink = 0;
  const perOp = [];
  for (let run = -1; run < RUNS; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) if (fn(i) !== undefined) sink++;
    const ns = Number(process.hrtime.bigint() - start) / ITERATIONS;
    if (run >= 0) perOp.push(ns);
  }
  perOp.sort((a, b) => a - b);
  const median = perOp[Math.floor(perOp.length / 2)];
  if (sink < 0) console.log(sink); // keeps the calls observable to the optimiser
  return { name, median, min: perOp[0], max: perOp[perOp.length - 1], target };
}

const format = (ns) => `${ns.toFixed(1).padStart(9)} ns/op`;

async function main() {
  const { evaluateFlag } = await load('src/evaluation/index.ts');
  const { createClient } = await load('src/index.ts');
  const keys = Array.from({ length: FLAG_COUNT }, (_, i) => `flag-${i}`);
  const snapshot = { schemaVersion: 1, version: 1, environmentId: 'bench', flags: {} };
  keys.forEach((key, i) => (snapshot.flags[key] = makeFlag(i)));
  const flags = keys.map((key) => snapshot.flags[key]);
  const evaluated = new Map(keys.map((key, i) => [key, evaluateFlag(flags[i], makeContext(i), `user-${i}`)]));
  // A device keeps evaluating with the same few attribute values; the pool stands for
  // them. Each iteration still gets a context object it has never seen.
  const pool = Array.from({ length: FLAG_COUNT }, (_, i) => makeContext(i, false));
  const fresh = (p) => ({ userId: p.userId, attributes: p.attributes, segmentIds: p.segmentIds });
  // Worst case: attribute values never seen before, so nothing parsed is reused.
  const unseen = Array.from({ length: ITERATIONS }, (_, i) => makeContext(i, true));
  const sample = evaluateFlag(flags[0], pool[1], 'user-1');
  if (sample.kind !== 'served') throw new Error(`benchmark flag is malformed: ${JSON.stringify(sample)}`);

  // A client serving the snapshot (bootstrap, no network), events on as by default.
  const client = createClient({
    sdkKey: 'svc_sdk_client_bench_key_0001',
    baseUrl: 'https://bench.invalid',
    bootstrap: snapshot,
    context: pool[1],
    pollInterval: 0,
    transport: () => new Promise(() => undefined),
  });
  const baseline = measure('Map.get (baseline)', (i) => evaluated.get(keys[i % FLAG_COUNT]));
  const results = [
    baseline,
    measure('client.get, memoised', (i) => client.get(keys[i % FLAG_COUNT]), baseline.median * TARGET_MEMOISED_READ_RATIO),
    measure(
      'first evaluation, five rules',
      (i) => {
        // Flag and pool entry advance at different strides, so pairs do not repeat in step.
        const context = fresh(pool[(i * 7) % FLAG_COUNT]);
        return evaluateFlag(flags[i % FLAG_COUNT], context, context.userId);
      },
      TARGET_FIRST_EVALUATION_NS,
    ),
    measure('  same, never-seen attributes', (i) => evaluateFlag(flags[i % FLAG_COUNT], unseen[i], unseen[i].userId)),
  ];

  console.log(`flagplane evaluator bench — ${FLAG_COUNT} flags × 5 rules, median of ${RUNS} runs × ${ITERATIONS} ops, node ${process.version}`);
  for (const r of results) {
    const target = r.target === undefined ? '' : `target < ${r.target.toFixed(0)} ns`;
    const verdict = r.target === undefined ? '' : r.median < r.target ? `  ${target}: met` : `  ${target}: NOT met`;
    console.log(`${r.name.padEnd(32)}${format(r.median)}  (min ${r.min.toFixed(1)}, max ${r.max.toFixed(1)})${verdict}`);
  }
  await client.close();
}

try {
  await main();
} catch (error) {
  console.error('bench-eval failed:', error);
}
process.exitCode = 0;
