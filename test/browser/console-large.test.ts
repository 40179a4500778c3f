/**
 * The console with 10,000 flags of five rules each (1 KB of JSON per flag, 10 MB in all) in
 * Chromium: a windowed list (a bounded number of cards in the DOM, the last flag reachable from
 * the keyboard), the search, one-flag toggles through the one-flag route, and a change from the
 * feed re-rendering only the card of the flag that changed. Prints what each step took.
 */
import type { Page } from 'playwright-core';
import type { Flag } from '../../src/index';
import { afterAll, expect, it } from 'vitest';
import { bundleConsole } from './console-bundle';
import { text, waitForText } from './console-page';
import { currentFlags, describeBrowser, eventually, expectNoPageProblems, sleep, type BrowserWorld } from './harness';
import { installRenderCounter, takeRenders } from './render-counter';

const bundle = await bundleConsole();
afterAll(() => bundle.remove());

const FLAGS = 10_000;
/** Cards in the DOM at most: the window (75% of 900 px) and its margins hold a handful of cards. */
const MAX_ROWS = 100;
const COUNTRIES = [['US', 'CA'], ['FR', 'DE', 'ES', 'IT', 'NL'], ['GB', 'IE'], ['JP', 'KR'], ['BR', 'MX', 'AR']];
const HALVES = [{ variation: 0, weight: 50_000 }, { variation: 1, weight: 50_000 }];

const keyOf = (i: number) => `flag-${String(i).padStart(5, '0')}`;

/** Five country `in` rules, each a 50/50 rollout, as an experiment program's flags are. */
function experimentFlag(i: number): Flag {
  return {
    on: i % 2 === 0,
    clientSide: i % 2 === 0,
    variations: [false, true],
    offVariation: 0,
    rules: COUNTRIES.map((values, r) => ({ id: `country-${r}`, conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values }], serve: { rollout: HALVES } })),
    fallthrough: { rollout: HALVES },
    salt: keyOf(i),
    metadata: { owner: `team-${i % 20}` },
  } as Flag;
}

/** Publishes the 10,000 flags in-process (10 MB: more than the admin route's body limit) and opens the console. */
async function openLarge(world: BrowserWorld) {
  await world.server.publish('production', { schemaVersion: 1, flags: Object.fromEntries(Array.from({ length: FLAGS }, (_, i) => [keyOf(i), experimentFlag(i)])) });
  const context = await world.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(installRenderCounter, 'FlagCard');
  const page = await context.newPage();
  const admin: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/admin/')) admin.push(`${request.method()} ${pathname}`);
  });
  const started = performance.now();
  await page.goto(`${world.server.baseUrl}/#token=${encodeURIComponent(world.server.adminToken)}`);
  await waitForText(page, 'flag-count', '10,000 flags');
  await page.getByTestId(`flag-${keyOf(0)}`).waitFor();
  return { page, admin, loadMs: performance.now() - started };
}

/** The cards and rows in the DOM, and what the list says it holds. */
const rows = (page: Page) =>
  page.evaluate(() => {
    const list = document.querySelector('[data-testid="flag-list"]')!;
    const items = list.querySelectorAll('[role="listitem"]');
    return { rows: items.length, cards: list.querySelectorAll('article.flag').length, setSize: Number(items[0]?.getAttribute('aria-setsize')), elements: list.querySelectorAll('*').length };
  });

/** Milliseconds from the next `event` on `testId` (in the page's clock) until `until` holds text `expected`. */
async function timed(page: Page, trigger: { testId: string; event: string }, until: { testId: string; text: string }, act: () => Promise<void>): Promise<number> {
  await page.evaluate(({ trigger, until }) => {
    const probe: { start?: number; end?: Promise<number> } = {};
    (window as unknown as { __probe: typeof probe }).__probe = probe;
    document.querySelector(`[data-testid="${trigger.testId}"]`)!.addEventListener(trigger.event, (event) => (probe.start = event.timeStamp), { once: true, capture: true });
    probe.end = new Promise((resolve) => {
      const check = () => (document.querySelector(`[data-testid="${until.testId}"]`)?.textContent === until.text ? resolve(performance.now()) : requestAnimationFrame(check));
      requestAnimationFrame(check);
    });
  }, { trigger, until });
  await act();
  return page.evaluate(async () => {
    const probe = (window as unknown as { __probe: { start: number; end: Promise<number> } }).__probe;
    return (await probe.end) - probe.start;
  });
}

describeBrowser(
  'the console with 10,000 flags',
  (suite) => {
    it('renders a window of cards, searches instantly, toggles through the one-flag route, and reaches the last flag from the keyboard', async () => {
      const { world } = suite;
      const { page, admin, loadMs } = await openLarge(world);
      const loaded = await rows(page);
      expect(loaded.setSize).toBe(FLAGS);
      expect(loaded.rows).toBeGreaterThan(0);
      expect(loaded.rows).toBeLessThan(MAX_ROWS);
      expect(loaded.cards).toBe(loaded.rows);

      await page.getByTestId('flag-search').fill('flag-0999');
      await waitForText(page, 'flag-count', '10 of 10,000 flags');
      const keystrokeMs = await timed(page, { testId: 'flag-search', event: 'keydown' }, { testId: 'flag-count', text: '1 of 10,000 flags' }, () => page.getByTestId('flag-search').press('7'));
      await page.getByTestId(`flag-${keyOf(9997)}`).waitFor();
      expect(await page.evaluate(() => location.hash)).toBe('#search=flag-09997');
      // Any case; metadata too (every twentieth flag is team-7's).
      await page.getByTestId('flag-search').fill('FLAG-09997');
      await waitForText(page, 'flag-count', '1 of 10,000 flags');
      await page.getByTestId('flag-search').fill('team-7');
      await waitForText(page, 'flag-count', '500 of 10,000 flags');
      expect((await rows(page)).rows).toBeLessThan(MAX_ROWS);
      await page.getByTestId('flag-search').fill('flag-09997');
      await waitForText(page, 'flag-count', '1 of 10,000 flags');
      // The fragment keeps it across a reload (the token is in the tab's sessionStorage).
      await page.reload();
      await waitForText(page, 'flag-count', '1 of 10,000 flags');
      expect(await page.getByTestId('flag-search').inputValue()).toBe('flag-09997');

      // A toggle is one PATCH of that flag; the card shows it from the answer.
      const key = keyOf(9997);
      const versionBefore = world.server.stores.environments.get('production')!.kv.current;
      admin.length = 0;
      const toggleMs = await timed(page, { testId: `toggle-${key}`, event: 'click' }, { testId: `flag-state-${key}`, text: 'ON' }, () => page.getByTestId(`toggle-${key}`).click());
      expect(currentFlags(world)[key]!.on).toBe(true);
      // How much of it the server's answer took (the one-flag route's own speed is the server's part).
      const patchMs = await page.evaluate((path) => {
        const entry = performance.getEntriesByType('resource').find((resource) => resource.name.endsWith(path)) as PerformanceResourceTiming;
        return entry.responseEnd - entry.startTime;
      }, `/flags/${key}`);
      expect(world.server.stores.environments.get('production')!.kv.current).toBe(versionBefore + 1);
      await eventually(() => admin.includes('GET /admin/v1/environments/production'), "the feed's read of the environment");
      await sleep(200);
      expect(admin.filter((request) => !/\/(analytics|diagnostics|identify-queue)$/.test(request))).toEqual([
        `PATCH /admin/v1/environments/production/flags/${key}`,
        'GET /admin/v1/environments/production',
      ]);
      // The search outlived the change the feed brought.
      expect(await page.getByTestId('flag-search').inputValue()).toBe('flag-09997');
      expect(await text(page, 'flag-count')).toBe('1 of 10,000 flags');

      // Delete is one DELETE of that flag, shown from its answer too.
      await page.getByTestId('flag-search').fill('flag-0999');
      await waitForText(page, 'flag-count', '10 of 10,000 flags');
      admin.length = 0;
      await page.getByTestId(`delete-${keyOf(9998)}`).click();
      await page.getByTestId(`confirm-delete-${keyOf(9998)}`).click();
      await waitForText(page, 'flag-count', '9 of 9,999 flags');
      expect(await page.getByTestId(`flag-${keyOf(9998)}`).count()).toBe(0);
      expect(currentFlags(world)[keyOf(9998)]).toBeUndefined();
      expect(admin.filter((request) => !/\/(analytics|diagnostics|identify-queue)$/.test(request))[0]).toBe(`DELETE /admin/v1/environments/production/flags/${keyOf(9998)}`);

      // Every flag again. Tab walks through the cards' controls past the first window: the
      // focused control scrolls into view and the rows after it are rendered on the way.
      await page.getByTestId('flag-search').fill('');
      await waitForText(page, 'flag-count', '9,999 flags');
      await page.getByTestId(`toggle-${keyOf(0)}`).focus();
      for (let press = 0; press < 120; press++) await page.keyboard.press('Tab');
      const tabbedTo = await page.evaluate(() => Number(document.activeElement?.closest('[role="listitem"]')?.getAttribute('aria-posinset')));
      expect(tabbedTo).toBeGreaterThan(loaded.rows);
      expect((await rows(page)).rows).toBeLessThan(MAX_ROWS);
      // The keyboard scrolls the list to its end.
      await page.getByTestId('flag-list').focus();
      for (let round = 0; round < 10 && !(await page.getByTestId(`flag-${keyOf(FLAGS - 1)}`).count()); round++) {
        await page.keyboard.press('End');
        await sleep(100);
      }
      await page.getByTestId(`flag-${keyOf(FLAGS - 1)}`).waitFor();
      expect((await rows(page)).rows).toBeLessThan(MAX_ROWS);

      // A focused card stays in the DOM, and focused, when the list scrolls away from it.
      await page.getByTestId(`toggle-${keyOf(FLAGS - 1)}`).focus();
      await page.getByTestId('flag-list').evaluate((list) => (list.scrollTop = 0));
      await page.getByTestId(`flag-${keyOf(0)}`).waitFor();
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(`toggle-${keyOf(FLAGS - 1)}`);
      await page.keyboard.press('Space');
      await waitForText(page, `flag-state-${keyOf(FLAGS - 1)}`, 'ON');

      const shown = await rows(page);
      console.log(
        `console, ${FLAGS} flags (10 MB): load → list shown ${loadMs.toFixed(0)} ms; a search keystroke → filtered list ${keystrokeMs.toFixed(1)} ms; ` +
          `toggle → shown ${toggleMs.toFixed(1)} ms (the PATCH's round trip ${patchMs.toFixed(1)} ms of it); ${shown.rows} rows (${shown.elements} elements) in the DOM`,
      );
      expectNoPageProblems(world);
    });

    it('a change from the feed re-renders only the card of the flag that changed', async () => {
      const { world } = suite;
      const { page } = await openLarge(world);
      const patch = async (key: string, members: Partial<Flag>) => {
        const response = await fetch(`${world.server.baseUrl}/admin/v1/environments/production/flags/${key}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${world.server.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(members),
        });
        expect(response.status).toBe(200);
      };
      await sleep(500);
      // The cards on screen mounted, each rendering once.
      const mounted = await takeRenders(page);
      expect(mounted.length).toBeGreaterThan(0);
      expect(new Set(mounted).size).toBe(mounted.length);
      const shownKey = keyOf(1);
      const shownAt = page.evaluate(
        (id) =>
          new Promise<number>((resolve) => {
            const check = () => (document.querySelector(`[data-testid="${id}"]`)?.textContent === 'ON' ? resolve(performance.now()) : requestAnimationFrame(check));
            check();
          }),
        `flag-state-${shownKey}`,
      );
      await patch(shownKey, { on: true });
      const shownMs = await shownAt;
      await waitForText(page, `flag-state-${shownKey}`, 'ON');
      const read = await page.evaluate(() => {
        const entries = performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('/admin/v1/environments/production')) as PerformanceResourceTiming[];
        const last = entries.at(-1)!;
        return { startTime: last.startTime, responseEnd: last.responseEnd, bytes: last.decodedBodySize };
      });
      console.log(
        `console, ${FLAGS} flags: a change made elsewhere → the feed's read of the environment (${(read.bytes / 1048576).toFixed(1)} MiB) ${(read.responseEnd - read.startTime).toFixed(0)} ms, ` +
          `then shown ${(shownMs - read.responseEnd).toFixed(0)} ms after its answer (parse, merge, render)`,
      );
      await sleep(300);
      expect(await takeRenders(page)).toEqual([shownKey]);

      // A flag far below the window: a new version on screen, and no card rendered at all.
      const version = world.server.stores.environments.get('production')!.kv.current;
      await patch(keyOf(5000), { on: false });
      await waitForText(page, 'version-production', String(version + 1));
      await sleep(300);
      expect(await takeRenders(page)).toEqual([]);
      expect(currentFlags(world)[keyOf(5000)]!.on).toBe(false);
      expectNoPageProblems(world);
    });
  },
  // Ten megabytes published, served and parsed per test, on a shared 2-core machine.
  { timeout: 90_000, world: { server: { consoleDir: bundle.dir } } },
);
