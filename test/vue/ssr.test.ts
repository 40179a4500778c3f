// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { createSSRApp, defineComponent, h, nextTick, type App } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { createFlagsPlugin, useFlag, useFlagsStatus } from '../../vue/index';
import { browserBootstrap, createMemoryStorage, type EvaluationContext, type Flag, type FlagsClient, type FlagSnapshot } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { servingFlag } from '../helpers/snapshots';
import { created, listeners } from '../react/created-clients';
import { QUIET, hangingClient, useAutoCleanup } from './fixtures';

vi.mock('../../src/index', async (original) => (await import('../react/created-clients')).recordingCore(await original()));

useAutoCleanup(created);

const SERVER_KEY = 'svc_sdk_server_test_key_0001';

/** What the data plane serves the server key: `checkout-color` by country, and a server-only flag. */
function published(version: number, colors = ['blue', 'green']): FlagSnapshot {
  const byCountry: Flag['rules'][number] = { id: 'us', conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values: ['US'] }], serve: { variation: 1 } };
  return {
    schemaVersion: 1,
    version,
    environmentId: 'production',
    flags: {
      'checkout-color': { ...servingFlag(colors[0]!), variations: colors, fallthrough: { variation: 0 }, rules: [byCountry] },
      banner: servingFlag(`banner v${version}`),
      'payments-provider': servingFlag('secret-provider', { clientSide: false }),
    },
  };
}

/** The process's client, with the server key, as a server keeps it (made once, awaited once). */
async function processClient(snapshot: FlagSnapshot): Promise<FlagsClient> {
  const { createClient } = await import('../../src/index');
  // happy-dom has a `document`: say that this client is the server's, not a page's.
  const flags = createClient({ sdkKey: SERVER_KEY, baseUrl: BASE_URL, transport: createFakeTransport(snapshotServer(snapshot).handler).transport, allowServerKeyInPage: true, ...QUIET });
  await flags.ready();
  return flags;
}

const Page = defineComponent(() => {
  const color = useFlag('checkout-color', 'grey');
  const banner = useFlag('banner', 'no banner');
  const status = useFlagsStatus();
  return () =>
    h('main', [
      h('button', { id: 'checkout', style: { background: color.value } }, color.value),
      h('p', { id: 'banner' }, banner.value),
      h('p', { id: 'status' }, `${status.value.status}/${status.value.connection}/${status.value.source}/${status.value.version}`),
    ]);
});

interface Visitor {
  context: EvaluationContext;
  anonymousId: string;
}

/** The docs' server side: the page's app for this visitor, its HTML and the bootstrap serialised beside it. */
async function renderPage(flags: FlagsClient, visitor: Visitor): Promise<string> {
  const bootstrap = browserBootstrap(flags);
  // As on a Node server: no `window` (the plugin then closes the client it made once rendered).
  vi.stubGlobal('window', undefined);
  try {
    const app = createSSRApp(Page).use(
      createFlagsPlugin({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: createFakeTransport(() => 'hang').transport, bootstrap, ...visitor }),
    );
    const html = await renderToString(app);
    const state = JSON.stringify({ bootstrap: bootstrap ?? null, ...visitor }).replace(/</g, '\\u003c');
    return `<div id="app">${html}</div><script>window.__FLAGS__ = ${state}</script>`;
  } finally {
    vi.unstubAllGlobals();
  }
}

/**
 * The docs' browser side: the page's bootstrap and visitor (or `otherVisitor`), no cache; what
 * Vue reported while hydrating.
 */
function hydratePage(page: string, transport = createFakeTransport(() => 'hang').transport, otherVisitor?: Visitor) {
  document.body.innerHTML = page;
  const { bootstrap, context, anonymousId } = JSON.parse(page.match(/window\.__FLAGS__ = (.*)<\/script>/)![1]!) as Visitor & { bootstrap: FlagSnapshot | null };
  const warnings: string[] = [];
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const app: App = createSSRApp(Page).use(
    createFlagsPlugin({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport, bootstrap: bootstrap ?? undefined, context, anonymousId, ...otherVisitor, persist: false, events: false }),
  );
  app.config.warnHandler = (message) => void warnings.push(message);
  const container = document.getElementById('app')!;
  const html = container.innerHTML;
  app.mount(container);
  return { app, container, html, warnings, errors, client: created.at(-1)! };
}

const us: Visitor = { context: { attributes: { country: 'US' } }, anonymousId: 'visitor-1' };

describe('server rendering with renderToString, then hydration', () => {
  it("renders the visitor's values and status, with no server-only flag in the page, and leaves no client running", async () => {
    const flags = await processClient(published(7));
    const page = await renderPage(flags, us);
    expect(page).toContain('<button id="checkout" style="background:green;">green</button>');
    expect(page).toContain('banner v7');
    // The status the browser's client has while hydrating, not the closed server client's.
    expect(page).toContain('ready/polling/bootstrap/7');
    expect(page).not.toContain('payments-provider');
    expect(page).not.toContain('secret-provider');
    const serverSide = created.at(-1)!;
    expect(serverSide).not.toBe(flags);
    expect(serverSide.getStatus().connection).toBe('stopped');
    expect(listeners(serverSide)).toBe(0);
  });

  it('the server-side client is closed at once and never reads or writes the cache: one visitor never reaches another', async () => {
    const cache = createMemoryStorage();
    const server = createFakeTransport(() => 'hang');
    vi.stubGlobal('window', undefined);
    const html = await renderToString(
      createSSRApp(Page).use(createFlagsPlugin({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: server.transport, bootstrap: published(7), cache, flushAt: 1 })),
    );
    vi.unstubAllGlobals();
    expect(html).toContain('blue');
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Nothing but the first snapshot request, aborted by the close.
    expect(server.requests.map((request) => [request.method, request.signal.aborted])).toEqual([['GET', true]]);
    // No generated anonymous id stored for the next render to adopt.
    expect(Object.fromEntries(cache.entries)).toEqual({});
  });

  it('an app-owned client read on the server is left open, with no listener added', async () => {
    const client = await hangingClient({ a: 'owned' });
    vi.stubGlobal('window', undefined);
    const html = await renderToString(
      createSSRApp(defineComponent(() => {
        const a = useFlag('a', 'fb');
        return () => h('p', a.value);
      })).use(createFlagsPlugin({ client })),
    );
    vi.unstubAllGlobals();
    expect(html).toBe('<p>owned</p>');
    expect(listeners(client)).toBe(0);
    expect(client.getStatus().connection).toBe('polling');
  });

  it('hydrates with no mismatch warning and no flash, then the browser client takes over live', async () => {
    const flags = await processClient(published(7));
    const page = await renderPage(flags, us);
    const browser = createFakeTransport(() => 'hang');
    const { container, html, warnings, errors, client } = hydratePage(page, browser.transport);
    expect(warnings).toEqual([]);
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(html);
    expect(container.querySelector('#checkout')!.textContent).toBe('green');

    const server = snapshotServer(published(8, ['blue', 'purple']));
    browser.setHandler(server.handler);
    await client.refresh();
    await nextTick();
    expect(container.querySelector('#checkout')!.textContent).toBe('purple');
    expect(container.querySelector('#banner')!.textContent).toBe('banner v8');
    expect(container.querySelector('#status')!.textContent).toBe('ready/polling/network/8');
  });

  it('the check is live: a browser evaluating for another visitor than the server is reported as a mismatch', async () => {
    const flags = await processClient(published(7));
    const page = await renderPage(flags, us);
    const { warnings } = hydratePage(page, undefined, { context: { attributes: { country: 'FR' } }, anonymousId: 'visitor-1' });
    expect(warnings.join('\n')).toMatch(/Hydration (text|node|.*) mismatch/i);
  });
});
