import { expect, it } from 'vitest';
import { describeBrowser, eventually, expectNoPageProblems, servingVariation, sleep, snapshotGets, waitForVersion, withFlags } from './harness';

const POLL_MS = 250;

describeBrowser('flagplane in Chromium: offline, online, hidden, visible', (suite) => {
  it('pauses polling while the page is hidden (emulated), flushes buffered events, and refreshes at once when visible', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: POLL_MS, flush: 600_000 });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    await page.evaluate(() => window.fp.client!.get('search-page-size'));

    // Headless Chromium never hides a page: setVisibility overrides document.visibilityState
    // and dispatches visibilitychange (pages/lib/kit.ts).
    await page.evaluate(() => window.fp.setVisibility('hidden'));
    const hiddenAt = Date.now();
    await eventually(() => world.server.stores.analytics.events.some((event) => event.key === 'search-page-size'), 'the flush on hide');
    await sleep(POLL_MS * 4);
    expect(snapshotGets(world, hiddenAt)).toEqual([]);

    const { version } = await world.publish('production', withFlags(world, { 'checkout-button-color': servingVariation(world, 'checkout-button-color', 1) }));
    const visibleAt = Date.now();
    await page.evaluate(() => window.fp.setVisibility('visible'));
    await waitForVersion(page, version);
    // At once, not at the next poll.
    expect(snapshotGets(world, visibleAt)[0]!.at - visibleAt).toBeLessThan(POLL_MS);
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('pauses polling while navigator.onLine is false, and picks up a snapshot published meanwhile when back online', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: POLL_MS, stream: true });
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
    await eventually(() => snapshotGets(world).length >= 2, 'a poll');

    await context.setOffline(true);
    // Chromium's network emulation also flips navigator.onLine and fires `offline`.
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    await page.waitForFunction(() => window.fp.client!.getStatus().connection !== 'streaming');
    const offlineAt = Date.now();
    const { version } = await world.publish('production', withFlags(world, { 'checkout-button-color': servingVariation(world, 'checkout-button-color', 1) }));
    await sleep(POLL_MS * 4);
    // Paused: not one request left the browser in four poll intervals.
    expect(snapshotGets(world, offlineAt)).toEqual([]);
    const offline = await page.evaluate(() => ({ color: window.fp.client!.get('checkout-button-color'), version: window.fp.client!.getStatus().version }));
    expect(offline).toEqual({ color: 'blue', version: version - 1 });

    await context.setOffline(false);
    await waitForVersion(page, version);
    expect(await page.evaluate(() => window.fp.client!.get('checkout-button-color'))).toBe('green');
    expect(snapshotGets(world, offlineAt).map((request) => request.status)).toContain(200);
    // And the stream is back.
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
    const status = await page.evaluate(() => ({ ...window.fp.client!.getStatus(), error: window.fp.client!.getStatus().error?.message ?? null }));
    expect(status).toMatchObject({ status: 'ready', source: 'network', error: null });
  });

  it('with pauseWhenOffline off, requests fail while offline (a NetworkError, status.error set) and succeed again online', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: POLL_MS, pauseOffline: false });
    await page.waitForFunction(() => window.fp.readyResult !== null);

    await context.setOffline(true);
    await page.waitForFunction(() => window.fp.errors.some((error) => error.code === 'network'));
    const failed = await page.evaluate(() => ({ error: window.fp.client!.getStatus().error?.name, status: window.fp.client!.getStatus().status }));
    // A real failure: reported, kept in the status, and the last flags still served.
    expect(failed).toEqual({ error: 'NetworkError', status: 'ready' });
    expect(await page.evaluate(() => window.fp.client!.get('checkout-button-color'))).toBe('blue');
    const { version } = await world.publish('production', withFlags(world, { 'checkout-button-color': servingVariation(world, 'checkout-button-color', 2) }));

    const onlineAt = Date.now();
    await context.setOffline(false);
    // Retried with backoff (1 s, then 2 s…), so this may take a few seconds.
    await waitForVersion(page, version, 10_000);
    expect(await page.evaluate(() => window.fp.client!.get('checkout-button-color'))).toBe('orange');
    expect(await page.evaluate(() => window.fp.client!.getStatus().error)).toBeNull();
    expect(snapshotGets(world, onlineAt).map((request) => request.status)).toContain(200);
  });
});
