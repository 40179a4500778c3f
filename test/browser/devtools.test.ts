import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, expectNoPageProblems, servingVariation, waitForVersion, withFlags } from './harness';

/** Each row of the panel as it shows: key → value and reason cells. */
const panelRows = (page: Page) =>
  page.evaluate(() =>
    Object.fromEntries(
      Array.from(document.querySelector('flagplane-devtools')!.shadowRoot!.querySelectorAll('[data-flag-key]')).map((row) => [
        row.getAttribute('data-flag-key')!,
        { value: row.querySelector('[data-role=value]')!.textContent, reason: row.querySelector('[data-role=reason]')!.textContent },
      ]),
    ),
  );

/** What `client.getDetails` says of the same keys, in the panel's words. */
const detailsOf = (page: Page, keys: string[]) =>
  page.evaluate(
    (wanted) =>
      Object.fromEntries(
        wanted.map((key) => {
          const details = window.fp.client!.getDetails(key);
          return [key, { value: JSON.stringify(details.value), reason: details.errorCode ? `${details.reason} (${details.errorCode})` : details.reason }];
        }),
      ),
    keys,
  );

const row = (page: Page, key: string) => page.locator(`[data-flag-key="${key}"]`);
const panelOpen = (page: Page) => page.evaluate(() => !document.querySelector<HTMLElement>('flagplane-devtools')!.hidden);

describeBrowser('flagplane/devtools in Chromium', (suite) => {
  it('opens by hotkey, shows what getDetails says, and an override reaches useFlag, survives a reload and clears', async () => {
    const { world } = suite;
    const page = await world.open(await world.newContext(), 'devtools', { events: false, poll: 600_000 });
    await page.waitForFunction(() => window.fp.readyResult !== null && document.getElementById('color')?.textContent === 'blue');
    expect(await panelOpen(page)).toBe(false);
    await page.keyboard.press('Alt+Shift+KeyF');
    expect(await panelOpen(page)).toBe(true);

    const shown = await panelRows(page);
    expect(Object.keys(shown)).toEqual(expect.arrayContaining(['checkout-button-color', 'new-checkout', 'search-page-size', 'not-in-the-snapshot']));
    expect(shown).toEqual(await detailsOf(page, Object.keys(shown).filter((key) => key !== 'not-in-the-snapshot')).then((details) => ({ ...details, 'not-in-the-snapshot': shown['not-in-the-snapshot'] })));
    expect(shown['not-in-the-snapshot']).toEqual({ value: '"fallback"', reason: 'ERROR (FLAG_NOT_FOUND)' });
    expect(await row(page, 'checkout-button-color').locator('[data-role=variation]').textContent()).toBe('control');

    // A value of another kind is refused; one of the flag's kind reaches the React component.
    await row(page, 'checkout-button-color').locator('[data-role=override]').fill('42');
    await row(page, 'checkout-button-color').locator('[data-role=override]').press('Enter');
    expect(await row(page, 'checkout-button-color').locator('[data-role=override-error]').textContent()).toBe('a number, but this flag serves string');
    await row(page, 'checkout-button-color').locator('[data-role=override]').fill('"purple"');
    await row(page, 'checkout-button-color').locator('[data-role=override]').press('Enter');
    await page.waitForFunction(() => document.getElementById('color')?.textContent === 'purple');
    expect(await row(page, 'checkout-button-color').locator('[data-role=reason]').textContent()).toBe('OVERRIDE');
    expect(await row(page, 'checkout-button-color').getAttribute('class')).toBe('overridden');
    // FLAGPLANE_DEVTOOLS_SCREENSHOT=1 writes docs/devtools.png from here.
    if (process.env.FLAGPLANE_DEVTOOLS_SCREENSHOT) await page.locator('.panel').screenshot({ path: 'docs/devtools.png' });

    await page.reload();
    await page.waitForFunction(() => window.fp?.client != null && document.getElementById('color')?.textContent === 'purple');
    expect(await page.evaluate(() => window.fp.client!.getDetails('checkout-button-color'))).toMatchObject({ value: 'purple', reason: 'OVERRIDE' });
    await page.evaluate(() => window.fpDevtools.devtools.open());
    expect(await row(page, 'checkout-button-color').locator('[data-role=reason]').textContent()).toBe('OVERRIDE');

    await row(page, 'checkout-button-color').locator('[data-role=clear-override]').click();
    await page.waitForFunction(() => document.getElementById('color')?.textContent === 'blue');
    expect(await row(page, 'checkout-button-color').locator('[data-role=reason]').textContent()).toBe('DEFAULT');
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('flagplane-devtools')))).toEqual([]);
    expectNoPageProblems(world);
  });

  it('a publish on the server updates the open panel', async () => {
    const { world } = suite;
    const page = await world.open(await world.newContext(), 'devtools', { stream: true, poll: 600_000 });
    await page.waitForFunction(() => window.fp.client!.getStatus().connection === 'streaming');
    await page.evaluate(() => window.fpDevtools.devtools.open());
    expect(await row(page, 'search-page-size').locator('[data-role=value]').textContent()).toBe('10');

    const { version } = await world.publish('production', withFlags(world, { 'search-page-size': servingVariation(world, 'search-page-size', 2) }));
    await waitForVersion(page, version);
    await page.waitForFunction(
      () => document.querySelector('flagplane-devtools')!.shadowRoot!.querySelector('[data-flag-key="search-page-size"] [data-role=value]')!.textContent === '50',
    );
    expect(await page.locator('[data-role=status-snapshot]').textContent()).toBe(`version ${version} from network`);
    expect(await panelRows(page).then((rows) => rows['search-page-size'])).toEqual((await detailsOf(page, ['search-page-size']))['search-page-size']);
    expectNoPageProblems(world);
  });

  it('unmount() leaves no element, no keydown listener, no subscription, no timer, and the methods as they were', async () => {
    const { world } = suite;
    const page = await world.open(await world.newContext(), 'devtools', { events: false, poll: 600_000, sync: false });
    await page.waitForFunction(() => window.fp.readyResult !== null && document.getElementById('color')?.textContent === 'blue');
    const cdp = await page.context().newCDPSession(page);
    const keydownListeners = async () => {
      const { result } = await cdp.send('Runtime.evaluate', { expression: 'window' });
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId! });
      return listeners.filter((listener) => listener.type === 'keydown').length;
    };
    const footprint = () =>
      page.evaluate(() => {
        const client = window.fp.client!;
        const { originals } = window.fpDevtools;
        return {
          elements: document.querySelectorAll('flagplane-devtools').length,
          listeners: window.fpDevtools.listeners(),
          timers: window.fpDevtools.liveTimers(),
          methodsAsMade: client.get === originals.get && client.getDetails === originals.getDetails && client.setOverrides === originals.setOverrides,
        };
      });
    expect(await keydownListeners()).toBe(1);
    // The panel mounted at load, gone: this is the page without it.
    await page.evaluate(() => window.fpDevtools.devtools.unmount());
    const without = { ...(await footprint()), keydown: await keydownListeners() };
    expect(without).toMatchObject({ elements: 0, keydown: 0, methodsAsMade: true });

    await page.evaluate(() => window.fpDevtools.mount());
    expect(await page.evaluate(() => window.fp.client!.get !== window.fpDevtools.originals.get)).toBe(true);
    await page.keyboard.press('Alt+Shift+KeyF');
    await row(page, 'search-page-size').locator('[data-role=override]').fill('20');
    await row(page, 'search-page-size').locator('[data-role=override]').press('Enter');
    await page.locator('[data-role=search]').fill('search');
    expect(await row(page, 'checkout-button-color').isHidden()).toBe(true);
    await page.keyboard.press('Alt+Shift+KeyF');
    expect({ ...(await footprint()), keydown: await keydownListeners() }).toMatchObject({ elements: 1, keydown: 1, listeners: without.listeners + 1, methodsAsMade: false });

    await page.evaluate(() => window.fpDevtools.devtools.unmount());
    expect({ ...(await footprint()), keydown: await keydownListeners() }).toEqual(without);
    // Its override is off the client, and still kept for the next mount.
    expect(await page.evaluate(() => window.fp.client!.getDetails('search-page-size').reason)).toBe('DEFAULT');
    expect(await page.evaluate(() => sessionStorage.getItem('flagplane-devtools:overrides:production'))).toBe('{"search-page-size":20}');
    expectNoPageProblems(world);
  });
});
