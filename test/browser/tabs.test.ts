import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { constantFlag, describeBrowser, eventually, expectNoPageProblems, sleep, snapshotGets, waitForVersion, withFlags, type BrowserWorld } from './harness';

/** Two tabs of one browser context (one origin, one BroadcastChannel), same key. */
async function twoTabs(world: BrowserWorld, stream: boolean): Promise<[Page, Page]> {
  const context = await world.newContext();
  const a = await world.open(context, 'client', { stream, poll: 600_000, tag: 'A' });
  const b = await world.open(context, 'client', { stream, poll: 600_000, tag: 'B' });
  for (const page of [a, b]) {
    await page.waitForFunction(() => window.fp.readyResult !== null);
    if (stream) await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
  }
  return [a, b];
}

interface Counted {
  snapshotFetches: number;
}

/** In a page: counts the snapshot fetches it starts from now on (the SDK looks `fetch` up at each call). */
function countSnapshotFetches(): void {
  const counted = window as unknown as Counted;
  const fetch = window.fetch;
  counted.snapshotFetches = 0;
  window.fetch = (input, init) => {
    if (String(input).includes('/sdk/v1/snapshot')) counted.snapshotFetches++;
    return fetch(input, init);
  };
}

function countByStatus(requests: Array<{ status: number | null }>): string {
  const counts = new Map<string, number>();
  for (const { status } of requests) counts.set(String(status), (counts.get(String(status)) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${status}: ${count}`).join(', ');
}

// How long to wait after both tabs hold a version for any further snapshot GET to show up.
const SETTLE_MS = 300;

describeBrowser('flagplane in Chromium: two tabs', (suite) => {
  it.each([
    ['both visible', 10],
    ['one of them hidden', 5],
  ])('with the stream on in both tabs (%s), each publish costs one snapshot GET: one tab fetches, the other takes it over the tab channel', async (visibility, n) => {
    const { world } = suite;
    const [a, b] = await twoTabs(world, true);
    if (visibility !== 'both visible') await b.evaluate(() => window.fp.setVisibility('hidden'));
    const since = Date.now();
    for (let i = 1; i <= n; i++) {
      const before = Date.now();
      const { version } = await world.publish('production', withFlags(world, { probe: constantFlag('probe', i) }));
      await Promise.all([waitForVersion(a, version), waitForVersion(b, version)]);
      for (const page of [a, b]) expect(await page.evaluate(() => window.fp.client!.get('probe'))).toBe(i);
      await sleep(SETTLE_MS);
      const gets = snapshotGets(world, before);
      expect(gets.map(({ status }) => status), `publish ${i}: one snapshot GET for both tabs`).toEqual([200]);
      const sources = await Promise.all([a, b].map((page) => page.evaluate(() => window.fp.client!.getStatus().source)));
      expect(sources.sort(), `publish ${i}: one tab fetched, the other took it from the channel`).toEqual(['network', 'tab']);
    }
    const gets = snapshotGets(world, since);
    console.log(`two tabs, stream on in both, ${visibility}: ${(gets.length / n).toFixed(1)} snapshot GETs per publish (n=${n}; by status ${countByStatus(gets)})`);
    for (const page of [a, b]) expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });

  it('with the stream on, a tab closed while it fetches for both hands its turn on: the other tab fetches the version itself', async () => {
    const { world } = suite;
    const [a, b] = await twoTabs(world, true);
    for (const page of [a, b]) await page.evaluate(countSnapshotFetches);
    const hold = world.proxy.hold((request) => request.path === '/sdk/v1/snapshot');
    const before = Date.now();
    const { version } = await world.publish('production', withFlags(world, { probe: constantFlag('probe', 'after-close') }));
    // One tab holds the turn and waits for its GET; the other waits for the turn.
    await eventually(() => hold.waiting === 1, 'the first tab to fetch');
    await sleep(SETTLE_MS);
    expect(hold.waiting, 'the other tab waits for its turn').toBe(1);
    const started = await Promise.all([a, b].map((page) => page.evaluate(() => (window as unknown as Counted).snapshotFetches)));
    expect([...started].sort()).toEqual([0, 1]);
    const [holder, survivor] = started[0] === 1 ? [a, b] : [b, a];
    await holder.close();
    // The browser frees the closed tab's lock: the survivor's turn comes and it fetches.
    await eventually(() => snapshotGets(world, before).length === 2, 'the other tab to fetch once the holder is gone');
    expect(await survivor.evaluate(() => (window as unknown as Counted).snapshotFetches)).toBe(1);
    hold.release();
    await waitForVersion(survivor, version);
    expect(await survivor.evaluate(() => window.fp.client!.get('probe'))).toBe('after-close');
    expect(await survivor.evaluate(() => window.fp.client!.getStatus().source)).toBe('network');
    expect(await survivor.evaluate(() => window.fp.errors)).toEqual([]);
  });

  it('without a stream, one tab refreshes and the other gets the snapshot through tab sync, without a fetch of its own', async () => {
    const { world } = suite;
    const [a, b] = await twoTabs(world, false);
    const n = 3;
    const since = Date.now();
    for (let i = 1; i <= n; i++) {
      const before = Date.now();
      const { version } = await world.publish('production', withFlags(world, { probe: constantFlag('probe', i) }));
      await a.evaluate(() => window.fp.client!.refresh());
      await waitForVersion(b, version);
      await sleep(SETTLE_MS);
      expect(snapshotGets(world, before), `publish ${i}: only tab A fetched`).toHaveLength(1);
      const seen = await b.evaluate(() => ({ probe: window.fp.client!.get('probe'), source: window.fp.client!.getStatus().source }));
      expect(seen).toEqual({ probe: i, source: 'tab' });
      expect(await a.evaluate(() => window.fp.client!.getStatus().source)).toBe('network');
    }
    const gets = snapshotGets(world, since);
    console.log(`two tabs, tab sync without stream: ${(gets.length / n).toFixed(1)} snapshot GETs per publish for 2 tabs (n=${n}; by status ${countByStatus(gets)})`);
    for (const page of [a, b]) expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });
});
