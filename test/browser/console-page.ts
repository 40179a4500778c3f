/** What the console tests share: opening the console with its token, and waiting for a text. */
import type { Page } from 'playwright-core';
import type { BrowserWorld } from './harness';

/** Opens the console (1280×900) with the admin token in the fragment, or without it. */
export async function openConsole(world: BrowserWorld, withToken = true): Promise<Page> {
  const context = await world.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${world.server.baseUrl}/${withToken ? `#token=${encodeURIComponent(world.server.adminToken)}` : ''}`);
  return page;
}

export const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();

/** Waits until the element's text is `expected` (or matches it). */
export async function waitForText(page: Page, testId: string, expected: string | RegExp): Promise<void> {
  await page.waitForFunction(
    ([id, source, flags]) => {
      const content = document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
      return content !== null && (flags === null ? content === source : new RegExp(source, flags).test(content));
    },
    typeof expected === 'string' ? ([testId, expected, null] as const) : ([testId, expected.source, expected.flags] as const),
  );
}
