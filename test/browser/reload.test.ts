import { expect, it } from 'vitest';
import { describeBrowser, eventually, expectNoPageProblems, servingVariation, snapshotGets, withFlags } from './harness';

/** Waits until the page's storage holds a persisted snapshot of `version`. */
async function persisted(page: import('playwright-core').Page, version: number) {
  await eventually(async () => {
    const dump = await page.evaluate(() => window.fp.storageDump());
    return Object.entries(dump).some(([key, value]) => key.startsWith('flagplane:snapshot:') && JSON.parse(value).snapshot?.version === version);
  }, `a persisted snapshot of version ${version}`);
}

describeBrowser('flagplane in Chromium: persisted snapshots across a reload', (suite) => {
  it.each([
    ['the default persistence (localStorage)', 'default'],
    ['the local-storage adapter', 'local'],
  ] as const)('serves the snapshot persisted by %s synchronously after a reload, then revalidates with a 304', async (_, storage) => {
    const { world } = suite;
    const { version } = await world.publish('production', withFlags(world, { 'checkout-button-color': servingVariation(world, 'checkout-button-color', 1) }));
    const context = await world.newContext();
    const page = await world.open(context, 'client', { storage, poll: 600_000 });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    expect(await page.evaluate(() => window.fp.readyResult)).toEqual({ status: 'ready', source: 'network' });
    expect(await page.evaluate(() => window.fp.client!.get('checkout-button-color'))).toBe('green');
    await persisted(page, version);

    const reloadedAt = Date.now();
    await page.reload();
    await page.waitForFunction(() => window.fp?.readyResult != null);
    // Read right after createClient, before any await: the cache was read synchronously.
    expect(await page.evaluate(() => window.fp.firstRead)).toEqual({ key: 'checkout-button-color', value: 'green', source: 'cache', version, status: 'ready' });
    expect(await page.evaluate(() => window.fp.readyResult)).toEqual({ status: 'ready', source: 'cache' });

    // The revalidation: whoever adds If-None-Match (the SDK or the browser's HTTP cache), the server answers 304.
    const revalidation = await eventually(() => snapshotGets(world, reloadedAt).find((request) => request.status !== null), 'the snapshot GET after the reload');
    expect(revalidation.status).toBe(304);
    // The demo snapshot came in br: its ETag is the weak one.
    expect(revalidation.headers['if-none-match']).toBe(`W/"snapshot-${version}"`);
    const status = await page.evaluate(() => ({ ...window.fp.client!.getStatus(), error: window.fp.client!.getStatus().error?.message ?? null }));
    expect(status).toMatchObject({ status: 'ready', version, error: null });
    expect(await page.evaluate(() => window.fp.client!.get('checkout-button-color'))).toBe('green');
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('serves the snapshot persisted in IndexedDB after a reload before the network answers', async () => {
    const { world } = suite;
    const { version } = await world.publish('production', withFlags(world, { 'checkout-button-color': servingVariation(world, 'checkout-button-color', 2) }));
    const context = await world.newContext();
    const page = await world.open(context, 'client', { storage: 'indexeddb', poll: 600_000 });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    expect(await page.evaluate(() => window.fp.readyResult)).toEqual({ status: 'ready', source: 'network' });
    await persisted(page, version);
    // Nothing of ours in localStorage: the adapter replaced the default cache.
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('flagplane:')))).toEqual([]);

    // Keep the network from answering until the cache has been served.
    const hold = world.proxy.hold((request) => request.path === '/sdk/v1/snapshot');
    const reloadedAt = Date.now();
    await page.reload();
    await page.waitForFunction(() => window.fp?.client?.getStatus().source === 'cache');
    const served = await page.evaluate(() => ({
      firstRead: window.fp.firstRead,
      color: window.fp.client!.get('checkout-button-color'),
      status: window.fp.client!.getStatus().status,
      version: window.fp.client!.getStatus().version,
      ready: window.fp.readyResult,
    }));
    // IndexedDB is asynchronous: nothing is served inside createClient, the cache a moment later.
    expect(served.firstRead).toMatchObject({ value: undefined, source: null });
    expect(served).toMatchObject({ color: 'orange', status: 'ready', version });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    expect(await page.evaluate(() => window.fp.readyResult)).toEqual({ status: 'ready', source: 'cache' });
    // The network has not answered: its request is still held (or not even sent yet).
    expect(snapshotGets(world, reloadedAt).filter((request) => request.status !== null)).toEqual([]);

    hold.release();
    const revalidation = await eventually(() => snapshotGets(world, reloadedAt).find((request) => request.status !== null), 'the held snapshot GET');
    expect(revalidation.status).toBe(304);
    expect(await page.evaluate(() => window.fp.client!.get('checkout-button-color'))).toBe('orange');
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });
});
