// npm run bench:prune — what a Postgres prune costs the requests it runs beside: the latency
// of one-event appends while nothing prunes (the baseline) and while a prune deletes N expired
// analytics rows in 1,000-row batches, in the same run, on a throwaway Postgres cluster. It
// reports and never fails.
//
//   npm run bench:prune          # 200,000 rows
//   node scripts/bench-prune.mjs 50000
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { median, quantile } from './bench-measure.mjs';
import { NODE_BUNDLE } from './server-kit.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUTFILE = join(ROOT, 'node_modules/.cache/flagplane-bench-prune/entry.mjs');
const HOUR = 3_600_000;
const BASELINE_APPENDS = 500;

/** The Postgres store and the tests' throwaway cluster, bundled from their sources. */
async function load() {
  await build({
    stdin: {
      contents: `
        export { openPostgresEventStores } from './reference-server/stores/postgres-event-stores';
        export { SCHEMA_SQL } from './reference-server/stores/postgres-schema';
        export { startPostgres } from './test/helpers/postgres-process';
        export { postgresBinDir } from './test/helpers/engine-binaries';`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    ...NODE_BUNDLE,
    outfile: OUTFILE,
  });
  return import(pathToFileURL(OUTFILE).href);
}

const event = (n) => [{ type: 'evaluation', environmentId: 'production', receivedAt: new Date().toISOString(), key: `bench-${n}` }];

async function timedAppend(stores, n) {
  const started = performance.now();
  await stores.analytics.append(event(n));
  return performance.now() - started;
}

const summary = (ms) => `p50 ${median(ms).toFixed(2)} ms, p99 ${quantile(ms, 0.99).toFixed(2)} ms, max ${Math.max(...ms).toFixed(2)} ms (${ms.length} appends)`;

async function main() {
  const rows = Number(process.argv[2] ?? 200_000);
  const { openPostgresEventStores, SCHEMA_SQL, startPostgres, postgresBinDir } = await load();
  const binDir = postgresBinDir();
  if (!binDir) {
    console.log('bench:prune: no Postgres binaries (initdb, pg_ctl) found; set FLAGPLANE_PG_BIN');
    return;
  }
  const cluster = await startPostgres(binDir);
  try {
    const url = await cluster.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`BEGIN; ${SCHEMA_SQL} COMMIT;`);
    await client.query(
      `INSERT INTO flagplane_analytics_events (environment_id, type, received_at, event)
       SELECT 'production', 'evaluation', now() - interval '2 hours', jsonb_build_object('key', 'old-' || g, 'value', true) FROM generate_series(1, $1::int) g`,
      [rows],
    );
    await client.query('ANALYZE');

    const baseline = await openPostgresEventStores({ url });
    const idle = [];
    for (let n = 0; n < BASELINE_APPENDS; n++) idle.push(await timedAppend(baseline, n));
    await baseline.close();

    let pruned = 0;
    let batches = 0;
    const started = performance.now();
    const stores = await openPostgresEventStores({
      url,
      retention: {
        events: { kept: 1_000_000, maxAgeMs: HOUR },
        identifyRows: { kept: 1_000_000, maxAgeMs: HOUR },
        onPruned: (_what, count) => {
          pruned += count;
          batches += 1;
        },
      },
    });
    const during = [];
    for (let n = 0; pruned < rows; n++) during.push(await timedAppend(stores, n));
    const seconds = (performance.now() - started) / 1000;
    await stores.close();
    await client.end();

    console.log(`bench:prune — ${rows.toLocaleString('en')} expired analytics rows, one-event appends one after another`);
    console.log(`  baseline (no prune)   ${summary(idle)}`);
    console.log(`  during the prune      ${summary(during)}`);
    console.log(`  prune                 ${pruned.toLocaleString('en')} rows in ${batches} batches, ${seconds.toFixed(2)} s (${Math.round(pruned / seconds).toLocaleString('en')} rows/s)`);
  } finally {
    await cluster.stop();
  }
}

await main();
