/**
 * End-to-end harness in real headless Chromium: a reference server, a counting proxy in
 * front of its HTTP routes (the pages' `baseUrl`), and a page server on another origin
 * serving pages bundled from pages/ — so CORS, the HTTP cache, storage, BroadcastChannel,
 * WebSocket and page lifecycle are the browser's own.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../reference-server/index';
import type { Flag, FlagSnapshot, JsonValue } from '../../src/snapshot/snapshot-types';
import { startPageServer, type PageServer } from './page-server';
import { startCountingProxy, type CountingProxy, type ProxiedRequest } from './proxy';

export type { ProxiedRequest } from './proxy';

/** Keys of reference-server/demo.json. */
export const DEMO_CLIENT_KEY = 'svc_sdk_client_demo_prod_0001';
export const DEMO_STAGING_CLIENT_KEY = 'svc_sdk_client_demo_stg_0001';

/** Required on this machine (closed network): without them Chromium keeps phoning home and stalls. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type BrowserAvailability =
  | { kind: 'run'; executablePath: string }
  | { kind: 'skip' | 'fail'; executablePath: string; message: string };

/**
 * Whether the suite can run: Chromium at `FLAGPLANE_CHROMIUM` (default /usr/bin/chromium).
 * Missing, the suite is skipped — except on CI (`CI=true`), where it fails: a browser suite
 * that silently passes without a browser proves nothing.
 */
export function browserAvailability(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): BrowserAvailability {
  const executablePath = env.FLAGPLANE_CHROMIUM || '/usr/bin/chromium';
  if (exists(executablePath)) return { kind: 'run', executablePath };
  if (env.CI === 'true') {
    return {
      kind: 'fail',
      executablePath,
      message: `test/browser: Chromium not found at ${executablePath}, and CI=true: install it (apt-get install chromium) or set FLAGPLANE_CHROMIUM`,
    };
  }
  return {
    kind: 'skip',
    executablePath,
    message: `test/browser: Chromium not found at ${executablePath}; skipping the browser suite (apt-get install chromium, or set FLAGPLANE_CHROMIUM)`,
  };
}

/** Headless Chromium with the flags above. */
export function launchChromium(executablePath = browserAvailability().executablePath): Promise<Browser> {
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
}

/**
 * Prints `message` once per vitest run, not once per test file: each file runs in its own
 * fork, so the first one to create a marker named after the vitest process (the forks'
 * parent) prints. A marker older than an hour is from an earlier run whose pid was reused.
 */
function warnOnce(message: string): void {
  const marker = join(tmpdir(), `flagplane-browser-skip-${process.ppid}`);
  try {
    writeFileSync(marker, message, { flag: 'wx' });
  } catch {
    try {
      if (Date.now() - statSync(marker).mtimeMs < 3_600_000) return;
      writeFileSync(marker, message);
    } catch {
      // No usable temp dir: print once per file rather than never.
    }
  }
  console.warn(message);
}

/** What a {@link describeBrowser} body reaches from its tests (set by the hooks). */
export interface BrowserSuite {
  /** One Chromium for the whole file. */
  readonly browser: Browser;
  /** A fresh world for each test, closed after it. */
  readonly world: BrowserWorld;
}

export interface DescribeBrowserOptions {
  /** Per-test timeout in ms. @default 30000 */
  timeout?: number;
  /** Options of each test's world (the reference server's, for example). */
  world?: Omit<WorldOptions, 'browser'>;
}

/**
 * `describe` for browser tests: one Chromium per file (launched in beforeAll, closed in
 * afterAll) and a fresh {@link BrowserWorld} per test. Without Chromium the suite is
 * skipped with one line on stderr, or fails on CI (see {@link browserAvailability}).
 */
export function describeBrowser(name: string, body: (suite: BrowserSuite) => void, options: DescribeBrowserOptions = {}): void {
  const availability = browserAvailability();
  if (availability.kind === 'fail') {
    const { message } = availability;
    describe(name, () => {
      it('has a Chromium to run on', () => {
        throw new Error(message);
      });
    });
    return;
  }
  let browser: Browser | undefined;
  let world: BrowserWorld | undefined;
  const suite: BrowserSuite = {
    get browser() {
      if (!browser) throw new Error('the browser is not launched yet: use it inside a test');
      return browser;
    },
    get world() {
      if (!world) throw new Error('no world yet: use it inside a test');
      return world;
    },
  };
  if (availability.kind === 'skip') {
    warnOnce(availability.message);
    describe.skip(name, () => body(suite));
    return;
  }
  describe(name, { timeout: options.timeout ?? 30_000 }, () => {
    beforeAll(async () => {
      browser = await launchChromium(availability.executablePath);
    }, 30_000);
    afterAll(async () => {
      await browser?.close();
    });
    beforeEach(async () => {
      world = await startBrowserWorld({ ...options.world, browser });
    });
    afterEach(async () => {
      await world?.close();
      world = undefined;
    });
    body(suite);
  });
}

/** Query parameters of an SDK page (see pages/lib/kit.ts). */
export interface PageParams {
  /** SDK key. @default the demo production client key */
  key?: string;
  /** Connect the stream (straight to the reference server's wsUrl) with the WebSocket transport. */
  stream?: boolean;
  /** Snapshot cache: the SDK's default (localStorage), the local-storage or IndexedDB adapter, or none. @default 'default' */
  storage?: 'default' | 'local' | 'indexeddb' | 'none';
  /** pollInterval in ms. */
  poll?: number;
  /** flushInterval in ms. */
  flush?: number;
  /** `false`: syncTabs off. */
  sync?: boolean;
  /** `false`: pauseWhenOffline off. */
  pauseOffline?: boolean;
  /** `false`: events off. */
  events?: boolean;
  /** context.userId */
  user?: string;
  /** A label recorded with the page's errors and lifecycle events. */
  tag?: string;
  /** The flag `firstRead` reads right after createClient. @default 'checkout-button-color' */
  read?: string;
  /** Overrides `api` (the proxy's base URL). */
  api?: string;
}

/** A console error, page error or unhandled rejection of a page. */
export interface PageProblem {
  kind: 'console' | 'pageerror' | 'unhandledrejection';
  text: string;
  url: string;
}

export interface WorldOptions {
  /** The browser to open contexts in; without it the world launches one and closes it with itself. */
  browser?: Browser;
  /** Options of the reference server (port and host are always 0 and 127.0.0.1). */
  server?: Omit<ReferenceServerOptions, 'port' | 'host'>;
}

export interface BrowserWorld {
  readonly browser: Browser;
  readonly server: ReferenceServer;
  readonly proxy: CountingProxy;
  readonly pages: PageServer;
  /** The pages' `baseUrl`: the proxy. */
  readonly apiUrl: string;
  /** The pages' `streamUrl`: the reference server itself. */
  readonly streamUrl: string;
  /** A new browser context whose pages are watched for problems; closed with the world. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** URL of `pages/<page>.ts` with its parameters. */
  pageUrl(page: string, params?: PageParams): string;
  /** Opens `page` in a new tab of `context` and waits until its `window.fp.client` exists. */
  open(context: BrowserContext, page: string, params?: PageParams): Promise<Page>;
  /** Problems of every page opened in the world's contexts so far. */
  problems(): PageProblem[];
  /** Publishes through the admin HTTP API; `at` is Date.now() just before the request. */
  publish(environmentId: string, snapshot: Omit<FlagSnapshot, 'version' | 'environmentId'>): Promise<{ version: number; at: number }>;
  /** Revokes a key through the admin HTTP API (DELETE /admin/v1/keys/{key}). */
  revokeKey(key: string): Promise<void>;
  /** Closes the contexts, the page server, the proxy and the reference server (and the browser, if it launched it). */
  close(): Promise<void>;
}

/** Starts a reference server, a counting proxy in front of it and a page server, all on 127.0.0.1 port 0. */
export async function startBrowserWorld(options: WorldOptions = {}): Promise<BrowserWorld> {
  const ownsBrowser = !options.browser;
  const started: Array<{ close(): Promise<void> }> = [];
  const start = async <T extends { close(): Promise<void> }>(starting: Promise<T>): Promise<T> => {
    const part = await starting;
    started.unshift(part);
    return part;
  };
  let browser: Browser, server: ReferenceServer, proxy: CountingProxy, pages: PageServer;
  try {
    browser = options.browser ?? (await start(launchChromium()));
    server = await start(startReferenceServer({ ...options.server, port: 0, host: '127.0.0.1' }));
    proxy = await start(startCountingProxy(server.baseUrl));
    pages = await start(startPageServer());
  } catch (error) {
    // Nothing half-started stays behind (a bundle error, a failed launch).
    await Promise.allSettled(started.map((part) => part.close()));
    throw error;
  }
  const contexts = new Set<BrowserContext>();
  const problems: PageProblem[] = [];
  let closing: Promise<void> | undefined;

  const watch = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const text = message.text();
      problems.push({ kind: text.startsWith('[unhandledrejection]') ? 'unhandledrejection' : 'console', text, url: page.url() });
    });
    page.on('pageerror', (error) => problems.push({ kind: 'pageerror', text: error.stack ?? error.message, url: page.url() }));
  };

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };

  const world: BrowserWorld = {
    browser,
    server,
    proxy,
    pages,
    apiUrl: proxy.baseUrl,
    streamUrl: server.wsUrl,
    async newContext(contextOptions) {
      const context = await browser.newContext(contextOptions);
      // Waits fail well before the test's timeout, pointing at the wait that did not happen.
      context.setDefaultTimeout(10_000);
      contexts.add(context);
      context.on('page', watch);
      context.on('close', () => contexts.delete(context));
      return context;
    },
    pageUrl(page, params = {}) {
      const { stream, key, api, ...rest } = params;
      const query = new URLSearchParams({ api: api ?? proxy.baseUrl, key: key ?? DEMO_CLIENT_KEY });
      if (stream) query.set('ws', server.wsUrl);
      for (const [name, value] of Object.entries(rest)) {
        if (value !== undefined) query.set(name, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
      }
      return `${pages.origin}/${page}.html?${query}`;
    },
    async open(context, page, params) {
      const tab = await context.newPage();
      await tab.goto(world.pageUrl(page, params));
      await tab.waitForFunction(() => window.fp?.client != null);
      return tab;
    },
    problems: () => [...problems],
    async publish(environmentId, snapshot) {
      const at = Date.now();
      const { version } = (await admin('PUT', `/admin/v1/environments/${encodeURIComponent(environmentId)}/snapshot`, snapshot)) as { version: number };
      return { version, at };
    },
    async revokeKey(key) {
      await admin('DELETE', `/admin/v1/keys/${encodeURIComponent(key)}`);
    },
    close() {
      closing ??= (async () => {
        await Promise.all([...contexts].map((context) => context.close()));
        await Promise.all([pages.close(), proxy.close()]);
        await server.close();
        if (ownsBrowser) await browser.close();
      })();
      return closing;
    },
  };
  return world;
}

/** Asserts that no page of the world logged a console error, threw, or left a rejection unhandled. */
export function expectNoPageProblems(world: BrowserWorld): void {
  expect(world.problems(), 'console errors, page errors and unhandled rejections of the pages').toEqual([]);
}

/** Polls `check` (sync or async) with real timers until it returns a truthy value, which it returns. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The snapshot GETs the proxy saw (optionally after `since`, a Date.now()). */
export const snapshotGets = (world: BrowserWorld, since = 0): ProxiedRequest[] =>
  world.proxy.requests.filter((request) => request.method === 'GET' && request.path === '/sdk/v1/snapshot' && request.at >= since);

/** The flags the reference server currently serves for `environmentId` (every flag, server-side ones included). */
export function currentFlags(world: BrowserWorld, environmentId = 'production'): Record<string, Flag> {
  const snapshot = world.server.stores.environments.current(environmentId);
  if (!snapshot) throw new Error(`no snapshot for ${environmentId}`);
  return structuredClone(snapshot.flags);
}

/** A publishable snapshot: the current flags with `changes` applied. */
export function withFlags(world: BrowserWorld, changes: Record<string, Flag>, environmentId = 'production') {
  return { schemaVersion: 1, flags: { ...currentFlags(world, environmentId), ...changes } };
}

/** The current flag `key` serving its variation `index` to everyone. */
export function servingVariation(world: BrowserWorld, key: string, index: number): Flag {
  const flag = currentFlags(world)[key];
  if (!flag) throw new Error(`no flag ${key}`);
  return { ...flag, on: true, rules: [], fallthrough: { variation: index } };
}

/** A client-side flag serving `value` to everyone. */
export function constantFlag(key: string, value: JsonValue): Flag {
  return { on: true, variations: [null, value], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: key, clientSide: true };
}

/** Waits until the page's client serves `version`. */
export async function waitForVersion(page: Page, version: number, timeoutMs = 5000): Promise<void> {
  await page.waitForFunction((wanted) => (window.fp.client?.getStatus().version ?? -1) >= wanted, version, { timeout: timeoutMs });
}

/** Median and 90th percentile (nearest rank) of `values`. */
export function percentiles(values: number[]): { median: number; p90: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { median: rank(0.5), p90: rank(0.9) };
}
