import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { sleep, servingVariation, waitForVersion, withFlags, type BrowserWorld } from './harness';

/**
 * Opens `pageName` (a page whose `#color` and `#size` each read one flag and count their
 * renders in `fp.renders`), streaming, then publishes a change of each flag in turn: each
 * publish must update its own reader once and leave the other alone (and any other reader the
 * page counts). Returns the page and the counts before the publishes.
 */
export async function expectPerFlagUpdates(world: BrowserWorld, pageName: string): Promise<{ page: Page; before: Record<string, number> }> {
  const context = await world.newContext();
  const page = await world.open(context, pageName, { stream: true, poll: 600_000 });
  await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
  await page.waitForFunction(() => document.getElementById('color')?.textContent === 'blue' && document.getElementById('size')?.textContent === '10');
  // Let any render still scheduled (the first snapshot, the status) run before counting.
  await sleep(200);
  const before = await page.evaluate(() => ({ ...window.fp.renders }));

  const { version } = await world.publish('production', withFlags(world, { 'checkout-button-color': servingVariation(world, 'checkout-button-color', 1) }));
  await waitForVersion(page, version);
  await page.waitForFunction(() => document.getElementById('color')?.textContent === 'green');
  await sleep(200);
  const after = await page.evaluate(() => ({ ...window.fp.renders }));
  expect(after).toEqual({ ...before, color: before.color! + 1 });
  expect(await page.textContent('#size')).toBe('10');

  // And the other way round.
  const second = await world.publish('production', withFlags(world, { 'search-page-size': servingVariation(world, 'search-page-size', 2) }));
  await waitForVersion(page, second.version);
  await page.waitForFunction(() => document.getElementById('size')?.textContent === '50');
  await sleep(200);
  expect(await page.evaluate(() => ({ ...window.fp.renders }))).toEqual({ ...after, size: after.size! + 1 });
  return { page, before };
}
