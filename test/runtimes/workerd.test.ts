import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { DEMO } from '../helpers/reference-server';
import { builtPackage, type BuiltPackage } from './built-package';
import { bundleWorker, slowProxy, startWorker, workerdAvailability, WORKERS_DIR, type WorkerRun } from './workerd-harness';

// The example worker's freshness, shortened for the test (30 s and 1 s by default).
const MAX_AGE_MS = 1500;
const REVALIDATE_MS = 300;
/**
 * workerd learnt the `cache` request field on 2024-11-11; until early 2024 it also had an
 * `importScripts`, which the transport takes for a browser worker (no `cache` sent). So:
 * before both, between (the field rejected), and a current date.
 */
const COMPATIBILITY_DATES = ['2024-01-01', '2024-06-01', '2026-07-01'];

const availability = await workerdAvailability();
if (availability.kind === 'skip') console.warn(availability.message);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(value)})`);
    await sleep(20);
  }
}

/** Publishes `search-page-size` with the fallthrough serving `variation` (10, 20, 50). */
async function publishPageSize(server: ReferenceServer, variation: number): Promise<void> {
  const response = await fetch(`${server.baseUrl}/admin/v1/environments/production/flags/search-page-size`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${DEMO.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ fallthrough: { variation } }),
  });
  expect(response.status).toBe(200);
}

type Answer = { pageSize: number; version: number };

describe('the Workers suite without workerd', () => {
  it('is skipped with one line, or fails with CI=true', async () => {
    const broken = () => Promise.reject(new Error('spawn workerd ENOENT'));
    expect(await workerdAvailability({}, broken)).toEqual({ kind: 'skip', message: expect.stringMatching(/cannot start \(spawn workerd ENOENT\); skipping/) });
    expect(await workerdAvailability({ CI: 'true' }, broken)).toEqual({ kind: 'fail', message: expect.stringMatching(/CI=true: spawn workerd ENOENT$/) });
  });
});

describe.skipIf(availability.kind === 'skip')('Cloudflare Workers (workerd, through miniflare), the built package', () => {
  if (availability.kind === 'fail') {
    it('has workerd to run on', () => {
      throw new Error(availability.message);
    });
    return;
  }
  let pkg: BuiltPackage;
  let script: string;
  beforeAll(async () => {
    pkg = await builtPackage();
    script = await bundleWorker(pkg);
  }, 120_000);
  afterAll(() => pkg?.remove());

  it('docs/runtimes.md shows the example worker as the test runs it', () => {
    const docs = readFileSync(new URL('../../docs/runtimes.md', import.meta.url), 'utf8');
    for (const file of ['flags.js', 'worker.js']) expect(docs).toContain(readFileSync(WORKERS_DIR + file, 'utf8').trim());
  });

  it.each(COMPATIBILITY_DATES)('compatibility date %s: reads, targeting, events, a publish served within the promised age, refresh() and close() from later requests', async (date) => {
    const server = await startReferenceServer({ port: 0 });
    const proxy = await slowProxy(server.baseUrl);
    let run: WorkerRun | undefined;
    try {
      run = await startWorker(script, date, {
        FLAGPLANE_SERVER_KEY: DEMO.prodServerKey,
        FLAGPLANE_URL: proxy.url,
        FLAGPLANE_STREAM_URL: server.baseUrl,
        FLAGS_MAX_AGE_MS: String(MAX_AGE_MS),
        FLAGS_REVALIDATE_MS: String(REVALIDATE_MS),
      });
      const { get } = run;
      // The isolate's first requests, at once, share its first check; a targeting rule per view.
      const first = await Promise.all(['b1', 'b2', 'b3', 'b4'].map((user) => get<Answer>(`/?user=${user}`)));
      expect(first).toEqual(Array(4).fill({ pageSize: 10, version: 1 }));
      expect(await get<Answer>('/?user=u1')).toEqual({ pageSize: 10, version: 1 });
      expect(await get<Answer>('/?user=u2&plan=enterprise')).toEqual({ pageSize: 50, version: 1 });
      expect(proxy.snapshotRequests).toBe(1);
      // Events, flushed after each response (waitUntil), reach the server.
      const evaluated = () => server.stores.analytics.events.filter((event) => event.type === 'evaluation').map((event) => [event.userId, event.value]);
      const expected = [['b1', 10], ['b2', 10], ['b3', 10], ['b4', 10], ['u1', 10], ['u2', 50]];
      await waitFor(async () => evaluated(), (events) => events.length >= expected.length, 'the evaluation events', 5000);
      expect(evaluated()).toEqual(expect.arrayContaining(expected));

      // Idle longer than the max age: the request waits for a check and serves the publish.
      await publishPageSize(server, 1);
      await sleep(MAX_AGE_MS + 100);
      expect(await get<Answer>('/?user=u3')).toEqual({ pageSize: 20, version: 2 });

      // Older than the revalidation age: answered with the flags held, checked after it; the
      // next requests serve the publish, well within the max age.
      await publishPageSize(server, 2);
      const published = Date.now();
      await sleep(REVALIDATE_MS + 100);
      const burst = await Promise.all(['u4', 'u4', 'u4'].map((user) => get<Answer>(`/?user=${user}`)));
      expect(burst).toContainEqual({ pageSize: 20, version: 2 });
      await waitFor(() => get<Answer>('/?user=u5'), (answer) => answer.version === 3, 'the revalidated snapshot', MAX_AGE_MS);
      expect(await get<Answer>('/?user=u5')).toEqual({ pageSize: 50, version: 3 });
      expect(Date.now() - published).toBeLessThan(MAX_AGE_MS);

      // refresh() while an earlier request's fetch is still in flight (held by the proxy):
      // that fetch is another request's I/O, which workerd refuses to abort. No throw.
      proxy.delayMs = 400;
      await get('/refresh/later');
      expect(await get('/refresh')).toMatchObject({ threw: null, version: 3 });
      proxy.delayMs = 0;

      // A stream opened by one request, closed by a later one: no throw.
      // What it does in between depends on the compatibility date (docs/runtimes.md).
      expect(await get('/stream/open')).toMatchObject({ ready: { status: 'ready' } });
      expect(await get('/stream/close')).toEqual({ threw: null, result: null });
      // close() from a later request, after all of that.
      expect(await get('/close')).toEqual({ threw: null, result: null });
      // No onError (every failure is logged as `flagplane: …`), nothing uncaught.
      expect(run.output.filter((line) => /flagplane:|Uncaught|Cannot perform I\/O|hanging/i.test(line))).toEqual([]);
    } finally {
      await run?.dispose();
      await proxy.close();
      await server.close();
    }
  }, 60_000);
});
