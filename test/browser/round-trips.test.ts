import { expect, it } from 'vitest';
import { describeBrowser, eventually, expectNoPageProblems, sleep, snapshotGets, waitForVersion, withFlags, constantFlag, type BrowserWorld } from './harness';

/** Requests the proxy saw for `method` on `path`, after `since` (a Date.now()). */
const seen = (world: BrowserWorld, method: string, path: string, since = 0) =>
  world.proxy.requests.filter((request) => request.method === method && request.path === path && request.at >= since);

describeBrowser('flagplane in Chromium: one round trip per steady-state request', (suite) => {
  it('polls and event posts send no preflight after the first of each route, and an unchanged snapshot costs no body', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: 250, flush: 150, user: 'u-poll', tag: 'poll' });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    // Each flush window reports a read again: one events POST per window with a read in it.
    for (let flushWindow = 0; flushWindow < 6; flushWindow++) {
      await page.evaluate(() => window.fp.client!.get('checkout-button-color'));
      await sleep(200);
    }
    await eventually(() => snapshotGets(world).length >= 8 && seen(world, 'POST', '/sdk/v1/events').length >= 4, 'polls and event posts');

    // A poll still on its way has no status yet: the answered ones are what the test looks at.
    const polls = snapshotGets(world).filter((request) => request.status !== null);
    const posts = seen(world, 'POST', '/sdk/v1/events').filter((request) => request.status !== null);
    const pollPreflights = seen(world, 'OPTIONS', '/sdk/v1/snapshot');
    const postPreflights = seen(world, 'OPTIONS', '/sdk/v1/events');
    console.log(
      `browser round trips: snapshot GET ${polls.length} / OPTIONS ${pollPreflights.length}, events POST ${posts.length} / OPTIONS ${postPreflights.length}`,
    );
    expect(pollPreflights).toHaveLength(1);
    expect(postPreflights).toHaveLength(1);
    // The browser's HTTP cache revalidated every poll after the first: no body crossed the wire again.
    expect(polls[0]!.status).toBe(200);
    expect(polls.slice(1).map((request) => request.status)).toEqual(polls.slice(1).map(() => 304));
    // Compressed (the demo snapshot is over 1 KiB): the weak ETag is what the cache revalidates with.
    expect(polls[0]!.answerHeaders!.etag).toBe('W/"snapshot-1"');
    expect(polls.slice(1).every((request) => request.headers['if-none-match'] === 'W/"snapshot-1"')).toBe(true);
    expect(posts.every((request) => request.status === 202)).toBe(true);
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('a publish over the stream costs one GET and no preflight, and the next poll is a 304', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { stream: true, poll: 600_000, events: false, tag: 'stream' });
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
    const start = Date.now();
    const publishes = 5;
    for (let i = 1; i <= publishes; i++) {
      const { version } = await world.publish('production', withFlags(world, { 'browser-round-trip': constantFlag('browser-round-trip', i) }));
      await waitForVersion(page, version);
    }
    const refetches = snapshotGets(world, start);
    const preflights = seen(world, 'OPTIONS', '/sdk/v1/snapshot', start);
    console.log(`browser requests per publish: ${refetches.length / publishes} GET, ${preflights.length / publishes} OPTIONS (${publishes} publishes)`);
    expect(refetches).toHaveLength(publishes);
    expect(preflights).toEqual([]);
    expect(refetches.every((request) => request.status === 200 && request.headers['flagplane-min-version'] !== undefined)).toBe(true);

    // The refetch went to the poll's URL, so the browser's cache holds the newest body.
    const before = Date.now();
    await page.evaluate(() => window.fp.client!.refresh());
    expect(snapshotGets(world, before).map((request) => request.status)).toEqual([304]);
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('reads a compressed snapshot in the coding Chromium asks for, then revalidates it: 304s, no body again', async () => {
    const { world } = suite;
    const flags = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`compressed-${i}`, constantFlag(`compressed-${i}`, `value-${i}`)]));
    const { version } = await world.publish('production', withFlags(world, flags));
    const plainBytes = Buffer.byteLength(JSON.stringify(world.server.stores.environments.current('production')));
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: 250, events: false, tag: 'compressed' });
    await waitForVersion(page, version);
    expect(await page.evaluate(() => window.fp.client!.get('compressed-299'))).toBe('value-299');
    await eventually(() => snapshotGets(world).filter((request) => request.status !== null).length >= 3, 'two polls after the first');
    const [first, ...polls] = snapshotGets(world).filter((request) => request.status !== null);
    const accepted = String(first!.headers['accept-encoding']);
    const answer = first!.answerHeaders!;
    console.log(`Chromium asks with Accept-Encoding: ${accepted}; answered ${answer['content-encoding']}, ${answer['content-length']} bytes of ${plainBytes}`);
    expect(answer['content-encoding']).toBe(/\bbr\b/.test(accepted) ? 'br' : 'gzip');
    expect(Number(answer['content-length'])).toBeLessThan(plainBytes / 5);
    expect(answer.etag).toBe(`W/"snapshot-${version}"`);
    expect(polls.map((request) => request.status)).toEqual(polls.map(() => 304));
    expect(polls.every((request) => request.headers['if-none-match'] === `W/"snapshot-${version}"`)).toBe(true);
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('an answer the server writes before it knows the route (431) is readable cross-origin, not a CORS failure', async () => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, 'client', { poll: 600_000, events: false });
    await page.waitForFunction(() => window.fp.readyResult !== null);
    // Straight to the reference server: the proxy would refuse the header itself. The preflight
    // carries no header values, so it passes; the request's 20 kB header is what the parser refuses.
    const answer = await page.evaluate(async (api) => {
      const response = await fetch(`${api}/sdk/v1/snapshot`, { headers: { authorization: `Bearer ${'a'.repeat(20_000)}` } });
      return { status: response.status, body: await response.json() };
    }, world.server.baseUrl);
    expect(answer).toEqual({ status: 431, body: { error: { code: 'invalid_request', message: 'the request headers are too large' } } });
  });
});
