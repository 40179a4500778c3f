import { expect, it } from 'vitest';
import { describeBrowser, expectNoPageProblems } from './harness';
import { expectPerFlagUpdates } from './per-flag-updates';

describeBrowser('flagplane/react in Chromium', (suite) => {
  it('re-renders only the component whose flag a publish changed', async () => {
    const { page } = await expectPerFlagUpdates(suite.world, 'react');
    expect(await page.evaluate(() => window.fp.errors)).toEqual([]);
    expectNoPageProblems(suite.world);
  });
});
