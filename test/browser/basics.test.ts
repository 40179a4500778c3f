import { expect, it } from 'vitest';
import demo from '../../reference-server/demo.json';
import {
  constantFlag,
  describeBrowser,
  expectNoPageProblems,
  percentiles,
  sleep,
  snapshotGets,
  waitForVersion,
  withFlags,
} from './harness';

describeBrowser('flagplane in Chromium: cross-origin reads and the stream', (suite) => {
  it('reads the demo flags from the server on another origin (ready, get, getAll)', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: 60_000 });
    expect(new URL(page.url()).origin).not.toBe(new URL(world.apiUrl).origin);

    const result = await page.evaluate(async () => {
      const client = window.fp.client!;
      const ready = await client.ready();
      return {
        ready,
        status: { ...client.getStatus(), error: client.getStatus().error?.message ?? null },
        all: client.getAll(),
        color: client.get('checkout-button-color'),
        size: client.get('search-page-size'),
        banner: client.get('spring-sale-banner'),
        csv: client.get('legacy-csv-export'),
        // Server-only in demo.json: a client key never sees it.
        payments: client.get('payments-provider', 'none'),
      };
    });
    const flags = demo.environments[0]!.snapshot.flags;
    expect(result.ready).toEqual({ status: 'ready', source: 'network' });
    expect(result.status).toMatchObject({ status: 'ready', source: 'network', version: demo.environments[0]!.snapshot.version, error: null });
    expect(result.color).toBe(flags['checkout-button-color'].variations[0]);
    expect(result.size).toBe(flags['search-page-size'].variations[0]);
    expect(result.banner).toEqual(flags['spring-sale-banner'].variations[0]);
    expect(result.csv).toBe(false); // off: offVariation 0
    expect(result.payments).toBe('none');
    expect(Object.keys(result.all).sort()).toEqual(
      Object.entries(flags)
        .filter(([, flag]) => flag.clientSide)
        .map(([key]) => key)
        .sort(),
    );
    // Really cross-origin: the browser sent the page's origin, and the snapshot was served through the proxy.
    const [get] = snapshotGets(world).filter((request) => request.status === 200);
    expect(get?.headers.origin).toBe(world.pages.origin);
    expect(get?.headers.authorization).toBe('Bearer svc_sdk_client_demo_prod_0001');
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('delivers publishes made through the admin HTTP API over the stream, and measures the latency', async () => {
    const { world } = suite;
    const context = await world.newContext();
    // A long poll interval: only the stream can bring the publishes in time.
    const page = await world.open(context, 'client', { stream: true, poll: 600_000 });
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');

    // The page shows the flag: notifications cover the flags read (docs/client.md, Lazy evaluation).
    await page.evaluate(() => window.fp.client!.get('probe'));
    const latencies: number[] = [];
    const n = 10;
    for (let i = 1; i <= n; i++) {
      const { version, at } = await world.publish('production', withFlags(world, { probe: constantFlag('probe', i) }));
      await waitForVersion(page, version);
      const arrived = await page.evaluate((v) => window.fp.changes.find((change) => change.version === v && change.changed.includes('probe'))?.at, version);
      expect(arrived, `publish ${i} (version ${version}) reached the subscribe listener`).toBeTypeOf('number');
      expect(await page.evaluate(() => window.fp.client!.get('probe'))).toBe(i);
      latencies.push(arrived! - at);
    }
    const { median, p90 } = percentiles(latencies);
    console.log(`browser publish→update latency: median ${median.toFixed(1)} ms, p90 ${p90.toFixed(1)} ms (n=${n})`);
    expect(latencies).toHaveLength(n);
    expect(await page.evaluate(() => window.fp.client!.getStatus().connection)).toBe('streaming');
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('after a key is revoked: the stream closes, the next fetch reports a 401, and reads keep the last flags', async () => {
    const { world } = suite;
    // A key of its own: the demo keys stay valid for whatever else runs on this server.
    const key = await world.server.createKey('production', 'client');
    const context = await world.newContext();
    const page = await world.open(context, 'client', { key, stream: true, poll: 600_000 });
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
    const before = await page.evaluate(() => ({ all: window.fp.client!.getAll(), version: window.fp.client!.getStatus().version }));

    await world.revokeKey(key);
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'polling');
    const streamErrors = await page.evaluate(() => window.fp.errors.filter((error) => error.code === 'stream'));
    expect(streamErrors).toEqual([expect.objectContaining({ name: 'StreamError', closeCode: 4403 })]);

    await page.evaluate(() => window.fp.client!.refresh());
    const httpErrors = await page.evaluate(() => window.fp.errors.filter((error) => error.code === 'http'));
    expect(httpErrors).toEqual([expect.objectContaining({ name: 'HttpError', status: 401 })]);
    expect(snapshotGets(world).at(-1)?.status).toBe(401);

    const after = await page.evaluate(() => {
      const client = window.fp.client!;
      return { all: client.getAll(), color: client.get('checkout-button-color'), version: client.getStatus().version, error: client.getStatus().error?.name };
    });
    expect(after).toEqual({ all: before.all, color: 'blue', version: before.version, error: 'HttpError' });
    // The stream stays closed: no reconnect with a revoked key (a first reconnect would come
    // after 1 s plus up to 20 % jitter).
    await sleep(1300);
    const connections = await page.evaluate(() => window.fp.changes.map((change) => change.connection));
    const sinceRevoked = connections.slice(connections.lastIndexOf('streaming') + 1);
    expect(sinceRevoked.length).toBeGreaterThan(0);
    expect(new Set(sinceRevoked)).toEqual(new Set(['polling']));

    // What the page reported is still readable from the next page of the tab (sessionStorage).
    await page.click('#leave');
    await page.waitForFunction(() => window.other !== undefined);
    expect(await page.evaluate(() => window.other.errors)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'StreamError', closeCode: 4403 }), expect.objectContaining({ name: 'HttpError', status: 401 })]),
    );
  });
});
