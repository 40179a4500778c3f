import { expect, it } from 'vitest';
import { describeBrowser, expectNoPageProblems, sleep, servingVariation, waitForVersion, withFlags } from './harness';

// The React page (pages/react.tsx) and the Vue page (pages/vue.ts, its components compiled by
// vue/compiler-sfc): the same two components, each reading one flag and counting its renders.
describeBrowser('flagplane/react and flagplane/vue in Chromium', (suite) => {
  it.each(['react', 'vue'])('%s: re-renders only the component whose flag a publish changed', async (binding) => {
    const { world } = suite;
    const context = await world.newContext();
    const page = await world.open(context, binding, { stream: true, poll: 600_000 });
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
    expect(after).toEqual({ color: before.color! + 1, size: before.size });
    expect(await page.textContent('#size')).toBe('10');

    // And the other way round.
    const second = await world.publish('production', withFlags(world, { 'search-page-size': servingVariation(world, 'search-page-size', 2) }));
    await waitForVersion(page, second.version);
    await page.waitForFunction(() => document.getElementById('size')?.textContent === '50');
    await sleep(200);
    expect(await page.evaluate(() => ({ ...window.fp.renders }))).toEqual({ color: after.color, size: after.size! + 1 });

    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(world);
  });
});
