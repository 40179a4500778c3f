import { expect, it } from 'vitest';
import { describeBrowser, expectNoPageProblems } from './harness';
import { expectPerFlagUpdates } from './per-flag-updates';

// The React page (pages/react.tsx) and the Vue page (pages/vue.ts, its components compiled by
// vue/compiler-sfc): the same two components, each reading one flag and counting its renders.
describeBrowser('flagplane/react and flagplane/vue in Chromium', (suite) => {
  it.each(['react', 'vue'])('%s: re-renders only the component whose flag a publish changed', async (binding) => {
    const { page } = await expectPerFlagUpdates(suite.world, binding);
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(suite.world);
  });
});
