// How the benches measure (scripts/bench.mjs, scripts/bench-peers.mjs): the clock, medians,
// the collector, and rounds interleaved so that no case always runs first or last.
import v8 from 'node:v8';
import vm from 'node:vm';

/** Measured rounds per section, after one warm-up round. */
export const ROUNDS = 11;

/** Nanoseconds, monotonic. */
export const now = () => Number(process.hrtime.bigint());
export const tick = () => new Promise((resolve) => setImmediate(resolve));
export const median = (xs) => quantile(xs, 0.5);
export function quantile(xs, q) {
  const sorted = Array.from(xs).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

let collector;
/** The collector, even without --expose-gc; looked up at first use, not at import. */
export function gc() {
  if (!collector) {
    if (typeof globalThis.gc === 'function') collector = globalThis.gc;
    else {
      v8.setFlagsFromString('--expose-gc');
      collector = vm.runInNewContext('gc');
    }
  }
  collector();
}

/** Lets pending callbacks run, then collects twice (the second pass sweeps what the first freed). */
export async function settle() {
  await tick();
  await tick();
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Runs `rounds + 1` rounds of every case (the first is a warm-up and is dropped), rotating
 * the order of the cases each round so that none always runs first or last. A case returns
 * one number or an array of samples; each case gets every sample of the measured rounds.
 */
export async function interleave(cases, rounds = ROUNDS) {
  const names = Object.keys(cases);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round <= rounds; round++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length];
      const result = await cases[name]();
      if (round > 0) samples[name].push(...(typeof result === 'number' ? [result] : result));
    }
  }
  return samples;
}

/**
 * The start-up baseline: `batch` timed copies of `values` (a plain object), `await` included,
 * as a case for {@link interleave}: what handing an app its values costs with no SDK at all.
 */
export function copyBaseline(values, batch) {
  const [probe] = Object.keys(values);
  return async () => {
    const us = new Array(batch);
    let sink = 0;
    for (let i = 0; i < batch; i++) {
      const start = now();
      const copy = await Promise.resolve({ ...values });
      us[i] = (now() - start) / 1000;
      sink += copy[probe] ? 1 : 0;
    }
    return sink < 0 ? [] : us;
  };
}

/** A duration given in milliseconds, in ms, or in µs below 1 ms. */
export function fmtMs(ms) {
  return Math.abs(ms) >= 1 ? `${fmt(ms)} ms` : `${fmt(ms * 1000)} µs`;
}

/** A figure with three significant digits or so. */
export function fmt(x) {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  return abs >= 100 ? x.toFixed(0) : abs >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/**
 * Runs a bench's `main` as a report, never a gate: a run that hangs gives up after
 * `watchdogMs` (calling `onGiveUp` first, for what an exit would leave behind), an error is
 * printed, and the exit code stays 0.
 */
export async function runReport(name, main, { watchdogMs, onGiveUp = () => {} }) {
  const watchdog = setTimeout(() => {
    console.error(`${name}: gave up after ${watchdogMs / 1000} s`);
    onGiveUp();
    process.exit(0);
  }, watchdogMs);
  watchdog.unref();
  try {
    await main();
  } catch (error) {
    console.error(`${name} failed:`, error);
  }
  process.exitCode = 0;
}
