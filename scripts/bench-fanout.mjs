// npm run bench:fanout — publish → every stream notified and refetched, at the stream cap.
//
// For each stream count, the reference server and a baseline (a bare `ws` server broadcasting
// the same message and a bare node:http server answering the same snapshot bytes) each run in
// a child process of their own (scripts/fanout-server.mjs), so the clients' work is not counted
// in their event loop. The clients (scripts/fanout-clients.mjs) run in other children: raw `ws`
// streams that refetch the snapshot with If-None-Match over keep-alive HTTP. Rounds alternate
// between the two servers; each prints publish → last notification and publish → last refetch
// answered (median and max of the rounds), the server's RSS and the longest time its event
// loop was held up during a round. It reports and never fails.
//
//   npm run bench:fanout                           # 2,000 and 10,000 streams, 7 rounds each
//   node scripts/bench-fanout.mjs 2000 --rounds 3
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const ROUNDS = flag('--rounds', 7);
const WARMUP = 2;
const SIZES = args.filter((arg, i) => /^\d+$/.test(arg) && !args[i - 1]?.startsWith('--')).map(Number);
const STREAM_COUNTS = SIZES.length > 0 ? SIZES : [2000, 10_000];
const CLIENTS_PER_PROCESS = 2500;
// Server sockets per client process for the refetches: the process file limit (20,000 here)
// must hold the streams and the HTTP connections.
const HTTP_SOCKETS_PER_PROCESS = 1000;
const ROUND_GAP_MS = 300;
const TARGETS = ['reference', 'bare'];

function child(script, argv) {
  const execArgv = argv.includes('reference') && process.env.FANOUT_SERVER_NODE_OPTIONS ? process.env.FANOUT_SERVER_NODE_OPTIONS.split(' ') : [];
  const process_ = fork(fileURLToPath(new URL(script, import.meta.url)), argv, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const listeners = new Set();
  process_.on('message', (message) => {
    for (const listener of listeners) listener(message);
  });
  process_.on('exit', (code) => {
    if (code !== 0 && code !== null) for (const listener of listeners) listener({ type: 'exit', code });
  });
  return {
    send: (message) => process_.send(message),
    /** The next message of `type` that `accept` takes. */
    next: (type, accept = () => true) =>
      new Promise((resolve, reject) => {
        const listener = (message) => {
          if (message.type === 'exit') reject(new Error(`${script} exited with ${message.code}`));
          if (message.type !== type || !accept(message)) return;
          listeners.delete(listener);
          resolve(message);
        };
        listeners.add(listener);
      }),
    stop: () => process_.send({ type: 'stop' }),
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};
const ms = (value) => `${value.toFixed(0).padStart(5)} ms`;

/** Rounds alternating between the servers: a publish, then every client's report of it. */
async function runRounds(servers, clients, refetch) {
  await Promise.all(clients.map((proc) => (proc.send({ type: 'mode', refetch }), proc.next('mode'))));
  const results = Object.fromEntries(TARGETS.map((name) => [name, []]));
  for (let round = 1; round <= WARMUP + ROUNDS; round++) {
    for (const name of TARGETS) {
      const reports = clients.map((proc) => proc.next('round', (message) => message.target === name));
      servers[name].send({ type: 'publish', round });
      const { t0 } = await servers[name].next('published');
      const rounds = await Promise.all(reports);
      servers[name].send({ type: 'stats' });
      const stats = await servers[name].next('stats');
      const notified = rounds.flatMap((r) => r.notified).map((t) => t - t0);
      const refetched = rounds.flatMap((r) => r.refetched).map((t) => t - t0);
      if (round > WARMUP) {
        results[name].push({ notifyP50: median(notified), notifyMax: Math.max(...notified), refetchMax: Math.max(0, ...refetched), ...stats });
      }
      await new Promise((resolve) => setTimeout(resolve, ROUND_GAP_MS));
    }
  }
  return results;
}

async function runSize(streams) {
  const processes = Math.max(1, Math.ceil(streams / CLIENTS_PER_PROCESS));
  const servers = Object.fromEntries(TARGETS.map((name) => [name, child('./fanout-server.mjs', ['server', name])]));
  const ready = Object.fromEntries(await Promise.all(TARGETS.map(async (name) => [name, await servers[name].next('ready')])));
  const clients = Array.from({ length: processes }, () => child('./fanout-clients.mjs', []));
  const share = (i) => Math.floor(streams / processes) + (i < streams % processes ? 1 : 0);
  const connectMs = {};
  for (const name of TARGETS) {
    const started = performance.now();
    await Promise.all(
      clients.map((proc, i) => {
        proc.send({ type: 'open', name, port: ready[name].port, key: ready[name].key, count: share(i), httpSockets: HTTP_SOCKETS_PER_PROCESS });
        return proc.next('opened', (message) => message.target === name);
      }),
    );
    connectMs[name] = performance.now() - started;
    process.stderr.write(`  ${streams} streams of ${name} connected in ${connectMs[name].toFixed(0)} ms\n`);
  }
  const results = { refetch: await runRounds(servers, clients, true), notifyOnly: await runRounds(servers, clients, false) };
  for (const proc of clients) proc.send({ type: 'tally' });
  const tallies = await Promise.all(clients.map((proc) => proc.next('tally')));
  for (const proc of [...clients, ...Object.values(servers)]) proc.stop();

  console.log(`\n${streams} streams (${processes} client processes; ${ROUNDS} rounds after ${WARMUP} warm-up)`);
  console.log('                       connect   notified p50   last notified       last refetched     loop held up        CPU in one turn     RSS');
  console.log('                                     (median)       (median / max)      (median / max)     (median / max)      (median / max)');
  for (const [pass, results_] of Object.entries(results)) {
    for (const name of TARGETS) {
      const rows = results_[name];
      const col = (key) => rows.map((row) => row[key]);
      const pair = (key) => `${ms(median(col(key)))} / ${ms(Math.max(...col(key)))}`;
      const label = `${name} ${pass === 'refetch' ? '+ refetch' : 'notify only'}`.padEnd(22);
      console.log(
        `${label} ${pass === 'refetch' ? ms(connectMs[name]) : '        '}   ${ms(median(col('notifyP50')))}     ${pair('notifyMax')}   ` +
          `${pass === 'refetch' ? pair('refetchMax') : '                 '}  ${pair('lagMs')}   ${pair('busyMs')}   ${(Math.max(...col('rss')) / 2 ** 20).toFixed(0)} MiB`,
      );
    }
  }
  for (const name of TARGETS) {
    const sum = (field) => tallies.reduce((total, t) => total + t.tallies[name][field], 0);
    console.log(`${name}: answers 200 ${sum('ok')}, 304 ${sum('notModified')}; notifications heard twice ${sum('duplicates')}; refetches answered an older version ${sum('stale')}`);
  }
}

console.log(`flagplane fan-out — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, loopback`);
console.log('reference server limits: { streamsPerAddress: 0 } (every client is 127.0.0.1), every other option at its default');
for (const streams of STREAM_COUNTS) await runSize(streams);
