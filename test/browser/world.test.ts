import { describe, expect, it } from 'vitest';
import { browserAvailability, describeBrowser, DEMO_CLIENT_KEY, eventually, sleep, startBrowserWorld } from './harness';
import { isListening } from './net';

describe('browserAvailability', () => {
  const nowhere = () => false;

  it('runs on the Chromium at FLAGPLANE_CHROMIUM, else /usr/bin/chromium', () => {
    expect(browserAvailability({ FLAGPLANE_CHROMIUM: '/opt/chrome' }, (path) => path === '/opt/chrome')).toEqual({ kind: 'run', executablePath: '/opt/chrome' });
    expect(browserAvailability({}, (path) => path === '/usr/bin/chromium')).toEqual({ kind: 'run', executablePath: '/usr/bin/chromium' });
  });

  it('skips with one line naming the path when Chromium is missing', () => {
    const result = browserAvailability({ FLAGPLANE_CHROMIUM: '/missing/chromium' }, nowhere);
    expect(result).toMatchObject({ kind: 'skip', executablePath: '/missing/chromium' });
    expect((result as { message: string }).message).toMatch(/^test\/browser: Chromium not found at \/missing\/chromium; skipping the browser suite/);
    expect((result as { message: string }).message).not.toContain('\n');
  });

  it('fails, never skips, on CI', () => {
    expect(browserAvailability({ CI: 'true' }, nowhere)).toMatchObject({ kind: 'fail', message: expect.stringContaining('CI=true') });
  });
});

describeBrowser('the browser world', (suite) => {
  it('proxies requests unchanged, records them, and holds the ones asked for', async () => {
    const { world } = suite;
    const auth = { authorization: `Bearer ${DEMO_CLIENT_KEY}` };
    const hold = world.proxy.hold((request) => request.path === '/sdk/v1/snapshot');
    const pending = fetch(`${world.apiUrl}/sdk/v1/snapshot?probe=1`, { headers: { ...auth, 'x-probe': 'yes' } });
    await eventually(() => hold.waiting === 1, 'the held request');
    await sleep(100);
    expect(world.proxy.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/sdk/v1/snapshot', query: '?probe=1', status: null, held: true })]);
    hold.release();
    const answer = await pending;
    expect(answer.status).toBe(200);
    // Node's fetch asks for gzip: the demo snapshot comes compressed, with the weak ETag.
    expect(answer.headers.get('etag')).toBe('W/"snapshot-1"');
    expect(JSON.parse(await answer.text())).toMatchObject({ version: 1, environmentId: 'production' });

    const events = await fetch(`${world.apiUrl}/sdk/v1/events`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ sentAt: new Date().toISOString(), events: [{ type: 'identify', userId: 'via-proxy', traits: { a: 1 } }] }),
    });
    expect(events.status).toBe(202);
    expect(await events.json()).toEqual({ accepted: 1 });
    expect(world.server.stores.identifyQueue.rows).toEqual([expect.objectContaining({ userId: 'via-proxy', traits: { a: 1 } })]);
    await eventually(() => world.proxy.requests[1]?.status === 202, 'the POST to be recorded as answered');
    expect(world.proxy.requests[0]).toMatchObject({ status: 200, headers: expect.objectContaining({ 'x-probe': 'yes', ...auth }) });
  });

  it('close() closes its contexts and releases every port', async () => {
    const { world, browser } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { stream: true });
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
    // A request still held at close must not keep anything open.
    world.proxy.hold(() => true);
    void page.evaluate(() => window.fp.client!.refresh()).catch(() => undefined);
    await eventually(() => world.proxy.requests.some((request) => request.held), 'a held request');
    const ports = [world.server.port, world.proxy.port, world.pages.port];
    for (const port of ports) expect(await isListening(port)).toBe(true);

    await world.close();
    for (const port of ports) expect(await isListening(port), `port ${port} after close`).toBe(false);
    expect(browser.contexts()).toEqual([]);
    expect(browser.isConnected()).toBe(true); // not the world's: describeBrowser closes it after the file
  });

  it('a world started without a browser launches its own and closes it', async () => {
    const world = await startBrowserWorld();
    try {
      const page = await world.open(await world.newContext(), 'client');
      expect(await page.evaluate(async () => (await window.fp.client!.ready()).status)).toBe('ready');
    } finally {
      await world.close();
    }
    expect(world.browser.isConnected()).toBe(false);
    expect(await isListening(world.proxy.port)).toBe(false);
  });
});
