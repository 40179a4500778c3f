/**
 * The reference server's console (GET /, reference-server/console/) in Chromium: it lists and
 * changes flags through the admin API, shows the server's refusals next to the field, keeps its
 * live panes current, and its demo pane's real SDK client follows every publish.
 */
import type { Page } from 'playwright-core';
import type { Flag } from '../../src/index';
import { afterAll, expect, it } from 'vitest';
import { demoConfig, startReferenceServer } from '../../reference-server/index';
import { bundleConsole } from './console-bundle';
import { openConsole, text, waitForText } from './console-page';
import { currentFlags, DEMO_CLIENT_KEY, DEMO_STAGING_CLIENT_KEY, describeBrowser, eventually, expectNoPageProblems, sleep, type BrowserWorld } from './harness';

const bundle = await bundleConsole();
afterAll(() => bundle.remove());

/** Where docs/console.png comes from: `FLAGPLANE_CONSOLE_SCREENSHOT=1 npx vitest run test/browser/console.test.ts`. */
const SCREENSHOT = process.env.FLAGPLANE_CONSOLE_SCREENSHOT ? new URL('../../docs/console.png', import.meta.url).pathname : null;

const version = (world: BrowserWorld, environmentId = 'production') => world.server.stores.environments.get(environmentId)!.kv.current;

/** The render counter of every `useFlag` box of the demo pane. */
const renders = (page: Page) =>
  page.evaluate(() =>
    Object.fromEntries(
      Array.from(document.querySelectorAll('[data-testid^="react-renders-"]')).map((element) => [
        element.getAttribute('data-testid')!.slice('react-renders-'.length),
        Number(element.textContent),
      ]),
    ),
  );

/** Waits until the demo client streams and shows `flag`. */
async function demoReady(page: Page, flag: string): Promise<void> {
  await waitForText(page, 'demo-connection', 'streaming');
  await page.getByTestId(`react-value-${flag}`).waitFor();
}

/** Chromium logs each 4xx answer to a fetch as a console error; those the test caused are expected. */
function expectOnlyRefusals(world: BrowserWorld, status: number, count: number): void {
  const problems = world.problems();
  const refusals = problems.filter((problem) => problem.kind === 'console' && problem.text.includes(`status of ${status}`));
  expect(refusals.length, JSON.stringify(problems)).toBe(count);
  expect(problems.length, JSON.stringify(problems)).toBe(count);
}

describeBrowser(
  'the reference server console in Chromium',
  (suite) => {
    it('lists the flags; a toggle publishes one version and the demo client and its React reader follow without a reload', async () => {
      const { world } = suite;
      const page = await openConsole(world);
      for (const key of Object.keys(currentFlags(world))) await page.getByTestId(`flag-${key}`).waitFor();
      expect(page.url(), 'the token leaves the address bar').toBe(`${world.server.baseUrl}/`);
      expect(await text(page, 'flag-type-search-page-size')).toBe('number');
      expect(await text(page, 'flag-visibility-payments-provider')).toBe('server only');
      expect(await text(page, 'rules-new-checkout')).toContain('email endsWith "@example.com"');

      await demoReady(page, 'legacy-csv-export');
      expect(await text(page, 'demo-value-legacy-csv-export')).toBe('false');
      expect(await text(page, 'demo-reason-legacy-csv-export')).toBe('DISABLED');
      expect(await text(page, 'react-value-legacy-csv-export')).toBe('false');
      // The client key sees client-side flags only.
      expect(await page.getByTestId('demo-value-payments-provider').count()).toBe(0);
      await sleep(300);
      const before = await renders(page);
      const versionBefore = version(world);

      await page.getByTestId('toggle-legacy-csv-export').click();
      await waitForText(page, 'react-value-legacy-csv-export', 'true');
      await waitForText(page, 'demo-value-legacy-csv-export', 'true');
      expect(await text(page, 'demo-reason-legacy-csv-export')).toBe('DEFAULT');
      await waitForText(page, 'flag-state-legacy-csv-export', 'ON');
      await waitForText(page, 'demo-version', String(versionBefore + 1));
      await waitForText(page, 'last-change', /legacy-csv-export: turned on → version \d+/);

      expect(version(world)).toBe(versionBefore + 1);
      expect(currentFlags(world)['legacy-csv-export']!.on).toBe(true);
      await sleep(300);
      // The toggled flag's reader rendered once more; no other reader rendered at all.
      expect(await renders(page)).toEqual({ ...before, 'legacy-csv-export': before['legacy-csv-export']! + 1 });
      expectNoPageProblems(world);
    });

    it("shows the server's refusal of an invalid rule or rollout next to the field, and publishes nothing", async () => {
      const { world } = suite;
      const page = await openConsole(world);
      await page.getByTestId('flag-checkout-button-color').waitFor();
      const versionBefore = version(world);
      const flagsBefore = currentFlags(world);

      const rules = [{ id: 'bad', conditions: [{ kind: 'attribute', attribute: 'country', op: 'near', values: ['US'] }], serve: { variation: 1 } }];
      // What the server says to exactly this change (nothing is published by a refusal).
      const refusal = await fetch(`${world.server.baseUrl}/admin/v1/environments/production/flags/checkout-button-color`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${world.server.adminToken}` },
        body: JSON.stringify({ rules }),
      });
      expect(refusal.status).toBe(400);
      const { error } = (await refusal.json()) as { error: { code: string; message: string; path: string } };
      expect(error.path).toBe('rules[0].conditions[0].op');

      await page.getByTestId('edit-rules-checkout-button-color').click();
      await page.getByTestId('rules-editor-checkout-button-color-input').fill(JSON.stringify(rules, null, 2));
      await page.getByTestId('rules-editor-checkout-button-color-save').click();
      const shown = page.getByTestId('rules-editor-checkout-button-color-error');
      await shown.waitFor();
      expect(await shown.locator('.error-path').textContent()).toBe(error.path);
      expect(await shown.textContent()).toContain(error.message.slice(error.path.length).trim());
      // The draft stays for fixing; nothing was published.
      expect(await page.getByTestId('rules-editor-checkout-button-color-input').inputValue()).toContain('"near"');

      // A rollout whose weights do not sum to 100%.
      await page.getByTestId('rollout-weight-new-checkout-0').fill('50');
      await page.getByTestId('rollout-weight-new-checkout-1').fill('10');
      expect(await text(page, 'rollout-sum-new-checkout')).toBe('total 60%');
      await page.getByTestId('rollout-apply-new-checkout').click();
      const rolloutError = page.getByTestId('rollout-error-new-checkout');
      await rolloutError.waitFor();
      expect(await rolloutError.textContent()).toMatch(/fallthrough\.rollout/);

      // Not JSON at all never leaves the page.
      await page.getByTestId('rules-editor-checkout-button-color-input').fill('[{');
      await page.getByTestId('rules-editor-checkout-button-color-save').click();
      await waitForText(page, 'rules-editor-checkout-button-color-error', /not JSON/);

      await sleep(300);
      expect(version(world)).toBe(versionBefore);
      expect(currentFlags(world)).toEqual(flagsBefore);
      expectOnlyRefusals(world, 400, 2);

      // Fixed, the same editors publish one version each.
      await page.getByTestId('rules-editor-checkout-button-color-input').fill(JSON.stringify([{ ...rules[0], conditions: [{ ...rules[0]!.conditions[0], op: 'in' }] }]));
      await page.getByTestId('rules-editor-checkout-button-color-save').click();
      await page.getByTestId('rules-editor-checkout-button-color-input').waitFor({ state: 'detached' });
      expect(version(world)).toBe(versionBefore + 1);
      await page.getByTestId('rollout-weight-new-checkout-1').fill('50');
      await page.getByTestId('rollout-apply-new-checkout').click();
      await eventually(() => version(world) === versionBefore + 2, 'the rollout to publish');
      expect(currentFlags(world)['new-checkout']!.fallthrough).toEqual({ rollout: [{ variation: 0, weight: 50_000 }, { variation: 1, weight: 50_000 }] });
      expectOnlyRefusals(world, 400, 2);
    });

    it('variation keys, metadata and an is rule: edited in the console, each one version, served to client keys', async () => {
      const { world } = suite;
      const page = await openConsole(world);
      const key = 'checkout-button-color';
      await page.getByTestId(`flag-${key}`).waitFor();
      const versionBefore = version(world);
      const editor = `variations-editor-${key}`;

      await page.getByTestId(`edit-variations-${key}`).click();
      for (const [index, name] of ['control', 'green', 'control'].entries()) await page.getByTestId(`${editor}-key-${index}`).fill(name);
      await page.getByTestId(`${editor}-save`).click();
      const refused = page.getByTestId(`${editor}-error`);
      await refused.waitFor();
      expect(await refused.locator('.error-path').textContent()).toBe('variationKeys[2]');
      expect(version(world)).toBe(versionBefore);

      await page.getByTestId(`${editor}-key-2`).fill('orange');
      await page.getByTestId(`${editor}-add`).click();
      await page.getByTestId(`${editor}-key-3`).fill('purple');
      await page.getByTestId(`${editor}-value-3`).fill('"purple"');
      await page.getByTestId(`${editor}-save`).click();
      await page.getByTestId(editor).waitFor({ state: 'detached' });
      expect(version(world)).toBe(versionBefore + 1);
      expect(currentFlags(world)[key]).toMatchObject({ variations: ['blue', 'green', 'orange', 'purple'], variationKeys: ['control', 'green', 'orange', 'purple'] });
      await waitForText(page, `variation-key-${key}-3`, 'purple');

      await page.getByTestId(`edit-metadata-${key}`).click();
      await page.getByTestId(`metadata-editor-${key}-input`).fill('{ "owner": "team-web", "ticket": 7, "experiment": true }');
      await page.getByTestId(`metadata-editor-${key}-save`).click();
      await waitForText(page, `metadata-${key}`, /owner: "team-web".*ticket: 7.*experiment: true/);
      expect(version(world)).toBe(versionBefore + 2);

      await page.getByTestId(`add-rule-${key}`).click();
      await page.getByTestId(`rule-form-${key}-attribute`).fill('customer');
      await page.getByTestId(`rule-form-${key}-op`).selectOption('is');
      await page.getByTestId(`rule-form-${key}-truth`).selectOption('false');
      await page.getByTestId(`rule-form-${key}-serve`).selectOption('1');
      await page.getByTestId(`rule-form-${key}-save`).click();
      await waitForText(page, `rules-${key}`, /if customer is false → "green"/);
      expect(version(world)).toBe(versionBefore + 3);
      expect(currentFlags(world)[key]!.rules.at(-1)).toEqual({
        id: expect.any(String),
        conditions: [{ kind: 'attribute', attribute: 'customer', op: 'is', values: [false] }],
        serve: { variation: 1 },
      });

      // What a client key is served, over HTTP.
      const served = await fetch(`${world.server.baseUrl}/sdk/v1/snapshot`, { headers: { authorization: `Bearer ${DEMO_CLIENT_KEY}` } });
      const { flags } = (await served.json()) as { flags: Record<string, Flag> };
      expect(flags[key]!.variationKeys).toEqual(['control', 'green', 'orange', 'purple']);
      expect(flags[key]!.metadata).toEqual({ owner: 'team-web', ticket: 7, experiment: true });
      expectOnlyRefusals(world, 400, 1);
    });

    it('live panes: stream clients per environment, the identify queue; switching environment closes the demo client', async () => {
      const { world } = suite;
      const page = await openConsole(world);
      await demoReady(page, 'new-checkout');
      await waitForText(page, 'streams-production', /^[1-9]\d*$/);
      expect(await text(page, 'demo-key')).toBe(DEMO_CLIENT_KEY);

      await page.getByTestId('demo-user-id').fill('user-e2e-7');
      await page.getByTestId('demo-attributes').fill('{ "plan": "enterprise", "country": "DE" }');
      await page.getByTestId('demo-identify').click();
      await waitForText(page, 'identify-queue', /user-e2e-7/);
      expect(world.server.stores.identifyQueue.rows.map((row) => row.userId)).toContain('user-e2e-7');
      // The new context is the client's: the enterprise rule serves 50.
      await waitForText(page, 'demo-value-search-page-size', '50');
      await waitForText(page, 'analytics-events', /search-page-size = 50 \(TARGETING_MATCH\) for user-e2e-7/);

      // A version published elsewhere shows up too.
      await world.publish('production', { schemaVersion: 1, flags: currentFlags(world) });
      await waitForText(page, 'version-production', String(version(world)));

      await page.getByTestId('env-staging').click();
      await waitForText(page, 'demo-key', DEMO_STAGING_CLIENT_KEY);
      await waitForText(page, 'flags-pane', /Flags · staging/);
      await waitForText(page, 'demo-connection', 'streaming');
      await waitForText(page, 'streams-staging', '1');
      await waitForText(page, 'streams-production', '0');
      expectNoPageProblems(world);
    });

    it('follows the change feed: nothing polled while idle, and an admin change made elsewhere re-reads one environment', async () => {
      const { world } = suite;
      const page = await openConsole(world);
      const admin: string[] = [];
      page.on('request', (request) => {
        const { pathname } = new URL(request.url());
        if (pathname.startsWith('/admin/')) admin.push(`${request.method()} ${pathname}`);
      });
      await waitForText(page, 'feed-state', 'live');
      await page.getByTestId('flag-new-checkout').waitFor();
      await demoReady(page, 'new-checkout');
      // What the demo client's first events and its stream made the console read: until 2 s pass without a request.
      for (let seen = -1, round = 0; seen !== admin.length && round < 10; round++) {
        seen = admin.length;
        await sleep(2000);
      }
      admin.length = 0;
      await sleep(3000);
      // The demo pane's own client reports its first evaluations, which the console reads once;
      // re-rendering the demo for each such read would evaluate and report again, in a loop.
      expect(admin, 'an idle console').toEqual([]);

      const before = version(world);
      const response = await fetch(`${world.server.baseUrl}/admin/v1/environments/production/flags/from-feed`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${world.server.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ on: true, clientSide: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 's' }),
      });
      expect(response.status).toBe(200);
      await page.getByTestId('flag-from-feed').waitFor({ timeout: 2000 });
      await waitForText(page, 'version-production', String(before + 1));
      expect(admin.filter((request) => !request.includes('/analytics') && !request.includes('/diagnostics') && !request.includes('/identify-queue'))).toEqual([
        'GET /admin/v1/environments/production',
      ]);

      expectNoPageProblems(world);
    });

    it('a server gone away: the header says reconnecting, and once back the console reads everything again', async () => {
      const { world } = suite;
      const config = { ...demoConfig(), adminToken: 'restart-token' };
      let server = await startReferenceServer({ config, consoleDir: bundle.dir });
      try {
        const page = await (await world.newContext()).newPage();
        await page.goto(`${server.baseUrl}/#token=restart-token`);
        await waitForText(page, 'feed-state', 'live');
        await waitForText(page, 'version-production', '1');
        const port = server.port;
        await server.close();
        await waitForText(page, 'feed-state', 'reconnecting…');

        // The new server holds other versions: only reading everything again shows them.
        server = await startReferenceServer({ config, consoleDir: bundle.dir, port });
        await server.publish('production', { schemaVersion: 1, flags: {} });
        await server.publish('staging', { schemaVersion: 1, flags: {} });
        await waitForText(page, 'feed-state', 'live');
        await waitForText(page, 'version-production', '2');
        await waitForText(page, 'version-staging', '2');
        const fromNewServer = await server.publish('production', { schemaVersion: 1, flags: {} });
        await waitForText(page, 'version-production', String(fromNewServer.version));
        // While it was down, Chromium logged each refused connection, a connection the stopping
        // server reset in the middle of a handshake, and the 503 it answers to an upgrade that
        // arrives while it closes (docs/reference-server.md, Rolling restarts); nothing else went wrong.
        const goneAway = /ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|Unexpected response code: 503/;
        expect(world.problems().filter((problem) => !goneAway.test(problem.text))).toEqual([]);
      } finally {
        await server.close();
      }
    });

    it('without a token: a prompt saying where the token is, and no admin request until one is given', async () => {
      const { world } = suite;
      const admin: string[] = [];
      const page = await openConsole(world, false);
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/admin/')) admin.push(request.url());
      });
      await page.getByTestId('token-prompt').waitFor();
      expect(await text(page, 'token-prompt')).toContain('npm start');
      expect(await text(page, 'demo-pane')).toContain('admin token');
      await sleep(1500);
      expect(admin).toEqual([]);

      await page.getByTestId('token-input').fill(world.server.adminToken);
      await page.getByTestId('token-submit').click();
      await page.getByTestId('flag-new-checkout').waitFor();
      // The tab keeps it.
      await page.reload();
      await page.getByTestId('flag-new-checkout').waitFor();
      expect(admin.length).toBeGreaterThan(0);
      expectNoPageProblems(world);
    });

    it('a refused token: the prompt again, with the server\'s message, and no more requests', async () => {
      const { world } = suite;
      const admin: string[] = [];
      const context = await world.newContext();
      const page = await context.newPage();
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/admin/')) admin.push(request.url());
      });
      await page.goto(`${world.server.baseUrl}/#token=not-the-token`);
      await page.getByTestId('token-prompt').waitFor();
      await waitForText(page, 'token-refused', /401 unauthorized/);
      await sleep(1500);
      // The change feed is asked for first: one request, refused, and nothing follows.
      expect(admin.map((url) => new URL(url).pathname)).toEqual(['/admin/v1/changes']);
      expectOnlyRefusals(world, 401, 1);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    });

    it.runIf(SCREENSHOT)('takes docs/console.png', async () => {
      const { world } = suite;
      const page = await openConsole(world);
      await demoReady(page, 'legacy-csv-export');
      await page.getByTestId('demo-identify').click();
      await page.getByTestId('toggle-legacy-csv-export').click();
      await waitForText(page, 'react-value-legacy-csv-export', 'true');
      await waitForText(page, 'identify-queue', /demo-user/);
      await sleep(1200);
      await page.screenshot({ path: SCREENSHOT! });
      expectNoPageProblems(world);
    });
  },
  { world: { server: { consoleDir: bundle.dir } } },
);
