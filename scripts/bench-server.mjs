// npm run bench:server — the reference server's snapshot route against a bare node:http server
// serving the same bytes with the same headers, measured side by side in one run with
// autocannon. Each server runs in a child process of its own (the load comes from this one);
// rounds alternate between them, and the figures are the medians. It reports and never fails.
//
//   npm run bench:server                 # 200 and 304, 3 rounds of 5 s each
//   node scripts/bench-server.mjs 2 3    # 2 rounds of 3 s
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import os from 'node:os';

import { fileURLToPath } from 'node:url';
import { startBundledServer } from './server-kit.mjs';

const KEY = 'svc_sdk_client_demo_prod_0001';
const TARGET_RATIO = 0.8;

// ---------------------------------------------------------------------------------------
// Children: one server each, announcing its port.

async function serveReference() {
  const server = await startBundledServer({ port: 0 });
  process.send({ port: server.port });
}

/** The same status, headers and body the reference server sends, from a bare handler. */
function serveBare(answer) {
  const body = Buffer.from(answer.body, 'utf8');
  const server = createServer((req, res) => {
    if (req.headers['if-none-match'] === answer.headers.etag) {
      res.writeHead(304, answer.notModifiedHeaders);
      res.end();
      return;
    }
    res.writeHead(200, { ...answer.headers, 'content-length': String(body.length) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}


// ---------------------------------------------------------------------------------------
// The parent: starts both, loads each in turn, prints a table.

function start(role, message) {
  const child = fork(fileURLToPath(import.meta.url), [role], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (message) child.send(message);
  return new Promise((resolve, reject) => {
    child.once('message', ({ port }) => resolve({ child, url: `http://127.0.0.1:${port}/sdk/v1/snapshot` }));
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
}

async function load(url, headers, seconds) {
  const result = await autocannon({ url, headers, connections: 50, duration: seconds });
  if (result.non2xx > 0 && !headers['if-none-match']) throw new Error(`${url}: ${result.non2xx} answers were not 2xx`);
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const rounds = Number(process.argv[2] ?? 3);
  const seconds = Number(process.argv[3] ?? 5);
  const reference = await start('reference');
  // As autocannon asks: no Accept-Encoding, so the body goes out as it is (bench:compress loads the compressed route).
  const first = await fetch(reference.url, { headers: { authorization: `Bearer ${KEY}`, 'accept-encoding': 'identity' } });
  const pick = (names) => Object.fromEntries(names.map((name) => [name, first.headers.get(name)]).filter(([, value]) => value !== null));
  const names = [...first.headers.keys()].filter((name) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name));
  const answer = { headers: pick(names), notModifiedHeaders: pick(names.filter((name) => name !== 'content-type')), body: await first.text() };
  const bare = await start('bare', answer);
  const cases = {
    '200': { authorization: `Bearer ${KEY}` },
    '304': { authorization: `Bearer ${KEY}`, 'if-none-match': answer.headers.etag },
  };
  const samples = {};
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, headers] of Object.entries(cases)) {
        // Alternate which server goes first, so neither always runs on a warmer machine.
        const order = round % 2 ? [['bare', bare], ['reference', reference]] : [['reference', reference], ['bare', bare]];
        for (const [server, { url }] of order) (samples[`${name} ${server}`] ??= []).push(await load(url, headers, seconds));
      }
    }
  } finally {
    reference.child.kill();
    bare.child.kill();
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  console.log(`flagplane bench:server — ${cpu}, ${os.cpus().length} cores, node ${process.version}`);
  console.log(`GET /sdk/v1/snapshot (${answer.body.length} B body), 50 connections, ${rounds} rounds of ${seconds} s, medians\n`);
  console.log(`${'answer'.padEnd(8)}${'reference req/s'.padStart(18)}${'bare req/s'.padStart(14)}${'ratio'.padStart(8)}${'p99 ms (ref / bare)'.padStart(22)}  target`);
  for (const name of Object.keys(cases)) {
    const ref = samples[`${name} reference`];
    const base = samples[`${name} bare`];
    const ratio = median(ref.map((r) => r.rps)) / median(base.map((r) => r.rps));
    const verdict = name === '200' ? `≥ ${TARGET_RATIO}× bare: ${ratio >= TARGET_RATIO ? 'ok' : 'MISS'}` : 'report only';
    console.log(
      `${name.padEnd(8)}${median(ref.map((r) => r.rps)).toFixed(0).padStart(18)}${median(base.map((r) => r.rps)).toFixed(0).padStart(14)}` +
        `${ratio.toFixed(2).padStart(8)}${`${median(ref.map((r) => r.p99))} / ${median(base.map((r) => r.p99))}`.padStart(22)}  ${verdict}`,
    );
  }
  const errors = Object.values(samples).flat().reduce((sum, r) => sum + r.errors, 0);
  if (errors) console.log(`\n${errors} connection errors or timeouts during the run`);
  console.log('\na report, never a gate: the exit code is 0 whatever the figures');
}

if (process.argv[2] === 'reference') await serveReference();
else if (process.argv[2] === 'bare') process.once('message', serveBare);
else await main();
