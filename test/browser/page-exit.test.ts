import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, eventually, expectNoPageProblems, sleep, type BrowserWorld } from './harness';

/**
 * Leaves a snapshot fetch and an identity overlay request in flight (held at the proxy) and
 * an `identify` event in the buffer, so that the page goes away with requests the browser
 * must end.
 */
async function requestsInFlight(world: BrowserWorld, page: Page, userId: string) {
  const hold = world.proxy.hold((request) => request.method === 'GET' && (request.path === '/sdk/v1/identity' || request.path === '/sdk/v1/snapshot'));
  await page.evaluate((id) => {
    const client = window.fp.client!;
    void client.identify(id, { plan: 'pro' });
    void client.refresh();
  }, userId);
  await eventually(() => hold.waiting === 2, 'the identity and snapshot requests to reach the proxy');
  return hold;
}

/** `error` events the server received (diagnostics log). */
const errorEvents = (world: BrowserWorld) => world.server.stores.diagnostics.events.filter((event) => event.type === 'error');

describeBrowser('flagplane in Chromium: requests the page ends are not failures', (suite) => {
  it('a navigation with requests in flight calls no onError and sends no error event', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: 600_000, flush: 600_000, tag: 'navigating' });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    const hold = await requestsInFlight(world, page, 'user-navigating');

    await page.click('#leave');
    await page.waitForFunction(() => window.other !== undefined);
    await eventually(() => world.server.stores.identifyQueue.rows.some((row) => row.userId === 'user-navigating'), 'the identify event');
    hold.release();
    // Room for a late error event to arrive, had one been sent.
    await sleep(300);
    const { errors } = await page.evaluate(() => window.other);
    expect(errors.filter((error) => error.tag === 'navigating')).toEqual([]);
    expect(errorEvents(world)).toEqual([]);
    expectNoPageProblems(world);
  });

  // Chromium 156 delivers no failure to a closing tab's script at all, so this held before the
  // page-exit fix too; it guards the closing path, while the navigation test above guards the fix.
  it('closing the tab with requests in flight sends no error event', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: 600_000, flush: 600_000, tag: 'closing' });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    const hold = await requestsInFlight(world, page, 'user-closing');

    await page.close({ runBeforeUnload: true });
    await eventually(() => world.server.stores.identifyQueue.rows.some((row) => row.userId === 'user-closing'), 'the identify event');
    hold.release();
    await sleep(300);
    expect(errorEvents(world)).toEqual([]);
  });

  it('a real failure is still reported', async () => {
    const { world } = suite;
    const context = await world.newContext();
    // Nothing listens on port 9 (discard) of loopback: the connection is refused.
    const page = await world.open(context, 'client', { api: 'http://127.0.0.1:9', poll: 600_000, events: false, tag: 'failing' });
    await page.waitForFunction(() => window.fp.errors.length > 0);
    expect(await page.evaluate(() => window.fp.errors[0])).toMatchObject({ name: 'NetworkError', code: 'network', message: expect.stringContaining('GET /sdk/v1/snapshot') });
  });
});
