import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ReferenceServer } from '../../reference-server/index';
import { evaluateFlag } from '../../src/evaluation/index';
import type { EvaluationContext, JsonValue } from '../../src/index';

export const FLAG = 'checkout-button-color';

/** What the demo serves a visitor for `key` (@default {@link FLAG}), evaluated here from the server's own snapshot. */
export function served(server: ReferenceServer, context: EvaluationContext, anonymousId: string, key = FLAG): JsonValue {
  const flag = server.stores.environments.current('production')!.flags[key]!;
  const evaluation = evaluateFlag(flag, context, context.userId ?? anonymousId);
  if (evaluation.kind !== 'served') throw new Error(`${key}: ${evaluation.errorCode}`);
  return evaluation.value;
}

/**
 * Records every text `#checkout` shows, from the HTML the parser inserts to each change after
 * hydration: an observer installed before the document exists misses no value.
 */
const recorder = () => {
  const values: string[] = [];
  (window as unknown as { checkoutValues: string[] }).checkoutValues = values;
  const record = () => {
    const text = document.getElementById('checkout')?.textContent;
    if (text != null && values[values.length - 1] !== text) values.push(text);
  };
  new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true });
};

export interface RecordedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console errors (and the app's `[flags]` warnings), page errors. */
  readonly problems: string[];
  /** Every text `#checkout` showed, in order, without repeats. */
  values(): Promise<string[]>;
  /** Resolves once the page's client has fetched a snapshot and its stream has said something. */
  live: Promise<unknown>;
}

/** Opens `url` in a new context with `cookies`, recording {@link RecordedPage.values}. */
export async function openRecorded(browser: Browser, url: string, cookies: Record<string, string> = {}): Promise<RecordedPage> {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  await context.addCookies(Object.entries(cookies).map(([name, value]) => ({ name, value, url })));
  await context.addInitScript(recorder);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // The apps have no icon: Chromium's request for one is not the app's.
    if (message.location().url.endsWith('/favicon.ico')) return;
    if (message.type() === 'error' || message.text().startsWith('[flags]')) problems.push(`${message.type()}: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.stack ?? error.message}`));
  const fetched = page.waitForResponse((response) => response.url().includes('/sdk/v1/snapshot'), { timeout: 10_000 });
  // Any socket: under StrictMode the first client is closed at once, and its socket with it.
  const said = new Promise<void>((resolve, reject) => {
    page.on('websocket', (socket) => socket.on('framereceived', () => resolve()));
    setTimeout(() => reject(new Error('no stream frame reached the page within 10 s')), 10_000).unref();
  });
  said.catch(() => undefined); // Awaited through `live`, maybe after the timeout.
  fetched.catch(() => undefined);
  await page.goto(url);
  return {
    page,
    context,
    problems,
    values: () => page.evaluate(() => [...(window as unknown as { checkoutValues: string[] }).checkoutValues]),
    live: Promise.all([fetched, said]),
  };
}

/** Publishes `changes` to `key` through the admin API, as an operator would. */
export async function patchFlag(server: ReferenceServer, key: string, changes: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${server.baseUrl}/admin/v1/environments/production/flags/${key}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(changes),
  });
  if (!response.ok) throw new Error(`PATCH ${key}: ${response.status} ${await response.text()}`);
}

/**
 * Publishes a variation of {@link FLAG} other than `shown` to everyone; resolves with its value
 * and the time it took to show, and the values the page showed until then. The flag's rules are
 * published back afterwards, shown or not.
 */
export async function publishAndWait(server: ReferenceServer, page: Page, shown: string, during?: () => Promise<void>): Promise<{ value: string; ms: number; values: string[] }> {
  const { on, rules, fallthrough, variations } = server.stores.environments.current('production')!.flags[FLAG]!;
  const index = variations.findIndex((value) => value !== shown);
  const at = Date.now();
  try {
    await patchFlag(server, FLAG, { on: true, rules: [], fallthrough: { variation: index } });
    const wanted = variations[index] as string;
    await page.waitForFunction((value: string) => document.getElementById('checkout')?.textContent === value, wanted, { timeout: 5000 });
    const ms = Date.now() - at;
    const values = await page.evaluate(() => [...(window as unknown as { checkoutValues: string[] }).checkoutValues]);
    await during?.();
    return { value: wanted, ms, values };
  } finally {
    await patchFlag(server, FLAG, { on, rules, fallthrough });
  }
}
