// npm run bench:flood — what a holder of a public client key can do to the reference server:
// valid 50-event batches posted from 50 connections for 60 s, at the default limits. Then
// the server must be alive, answer a snapshot GET within 250 ms, and list its analytics
// under 10 MiB and 1 s. The server runs in a child process whose RSS is sampled every
// 250 ms. It reports and never fails.
//
//   npm run bench:flood        # 60 s
//   node scripts/bench-flood.mjs 10
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startBundledServer } from './server-kit.mjs';

const CLIENT_KEY = 'svc_sdk_client_demo_prod_0001';
const ADMIN_TOKEN = 'dev-admin-token';
const TARGETS = { rssMiB: 400, snapshotMs: 250, listingMiB: 10, listingMs: 1000 };

if (process.argv[2] === 'server') {
  const server = await startBundledServer({ port: 0 });
  process.send({ port: server.port, pid: process.pid });
} else {
  await main();
}

/** The resident set of `pid`, in MiB, from /proc (Linux). */
function rssMiB(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** A valid batch: 50 evaluations of distinct users, as many browsers would send. */
function batch(n) {
  const events = Array.from({ length: 50 }, (_, i) => ({
    type: 'evaluation',
    key: `flag-${i % 20}`,
    reason: 'DEFAULT',
    value: i % 2 === 0,
    userId: `flood-user-${n}-${i}`,
  }));
  return JSON.stringify({ sentAt: new Date().toISOString(), events });
}

async function timed(url, headers) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const body = await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started, bytes: body.byteLength };
}

async function main() {
  const seconds = Number(process.argv[2] ?? 60);
  const child = fork(fileURLToPath(import.meta.url), ['server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  let exited = null;
  child.on('exit', (code, signal) => (exited = signal ?? code));
  const base = `http://127.0.0.1:${port}`;
  const startRss = rssMiB(child.pid);
  let peak = startRss;
  const sampler = setInterval(() => {
    if (exited === null) peak = Math.max(peak, rssMiB(child.pid));
  }, 250);
  // Requests are built per connection so that user ids differ between batches.
  let n = 0;
  const result = await autocannon({
    url: `${base}/sdk/v1/events`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: batch(n++) }) }],
  });
  clearInterval(sampler);
  const alive = exited === null;
  const snapshot = alive ? await timed(`${base}/sdk/v1/snapshot`, { authorization: `Bearer ${CLIENT_KEY}` }) : null;
  const listing = alive ? await timed(`${base}/admin/v1/analytics`, { authorization: `Bearer ${ADMIN_TOKEN}` }) : null;
  const evicted = alive
    ? (await (await fetch(`${base}/admin/v1/diagnostics?limit=0`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()).evicted
    : null;
  const endRss = alive ? rssMiB(child.pid) : NaN;
  child.kill();

  const verdict = (ok) => (ok ? 'ok' : 'MISS');
  const mib = (bytes) => bytes / 1024 / 1024;
  console.log(`flagplane bench:flood — ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, node ${process.version}`);
  console.log(`POST /sdk/v1/events, valid 50-event batches with a client key, 50 connections, ${seconds} s, default limits\n`);
  console.log(`batches accepted          ${result['2xx']} (${(result['2xx'] * 50).toLocaleString('en')} events), ${result.requests.average.toFixed(0)} batches/s, non-2xx ${result.non2xx}, errors ${result.errors}`);
  console.log(`server RSS                start ${startRss.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, end ${endRss.toFixed(0)} MiB   target peak < ${TARGETS.rssMiB} MiB: ${verdict(peak < TARGETS.rssMiB)}`);
  console.log(`process alive             ${alive ? 'yes' : `no (exit ${exited})`}   ${verdict(alive)}`);
  if (snapshot) console.log(`snapshot GET after        ${snapshot.status} in ${snapshot.ms.toFixed(1)} ms   target < ${TARGETS.snapshotMs} ms: ${verdict(snapshot.status === 200 && snapshot.ms < TARGETS.snapshotMs)}`);
  if (listing) {
    console.log(
      `GET /admin/v1/analytics   ${listing.status}, ${mib(listing.bytes).toFixed(3)} MiB in ${listing.ms.toFixed(1)} ms   target < ${TARGETS.listingMiB} MiB and < ${TARGETS.listingMs} ms: ${verdict(listing.status === 200 && mib(listing.bytes) < TARGETS.listingMiB && listing.ms < TARGETS.listingMs)}`,
    );
  }
  if (evicted) console.log(`evicted (diagnostics)     ${JSON.stringify(evicted)}`);
  console.log('\na report, never a gate: the exit code is 0 whatever the figures');
}
