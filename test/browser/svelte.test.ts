import { expect, it } from 'vitest';
import { describeBrowser, expectNoPageProblems } from './harness';
import { expectPerFlagUpdates } from './per-flag-updates';

describeBrowser('flagplane/svelte in Chromium', (suite) => {
  it('a publish over the stream updates only the component that reads the changed flag; unmounting leaves no store subscribed', async () => {
    // #color is a runes component, #size one in Svelte 4 syntax, #banner (an object value,
    // whose store would notify on any `set`) one through fromStore (pages/lib/svelte/).
    const { page, before } = await expectPerFlagUpdates(suite.world, 'svelte');
    expect(await page.evaluate(() => window.fp.renders.banner)).toBe(before.banner);
    expect(await page.textContent('#banner')).toBe('{"show":false}');
    // The page's change recorder, and one store per component.
    expect(await page.evaluate(() => window.fpSvelte.listeners())).toBe(4);
    await page.evaluate(() => window.fpSvelte.unmount());
    expect(await page.evaluate(() => window.fpSvelte.listeners())).toBe(1);
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(suite.world);
  });
});
