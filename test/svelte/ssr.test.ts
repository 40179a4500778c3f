// @vitest-environment happy-dom
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flushSync, hydrate, unmount } from 'svelte';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EvaluationContext, type FlagSnapshot } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport, snapshotServer } from '../helpers/fake-transport';
import { servingFlag } from '../helpers/snapshots';
import { svelteEsbuild } from '../helpers/svelte-compile';
import Page from './components/Page.svelte';
import type { createServer as CreateServer } from './ssr/server';
import { hangingClient, snapshotV, useAutoCleanup } from './fixtures';

useAutoCleanup();

const root = join(process.cwd());
const dir = mkdtempSync(join(tmpdir(), 'flagplane-svelte-ssr-'));
let createServer: typeof CreateServer;

// The server's code, bundled as a server bundles it: Svelte's server build (Node's conditions),
// its components compiled for the server, its own copy of the SDK.
beforeAll(async () => {
  const result = await build({
    entryPoints: [join(root, 'test/svelte/ssr/server.ts')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    write: false,
    logLevel: 'silent',
    alias: { flagplane: join(root, 'src/index.ts'), 'flagplane/svelte': join(root, 'svelte/index.ts') },
    plugins: [svelteEsbuild('server')],
  });
  const file = join(dir, 'server.cjs');
  writeFileSync(file, result.outputFiles[0]!.text);
  // Node's own require, past Vite: the bundle is whole, and Vite does not serve files outside the root.
  ({ createServer } = createRequire(import.meta.url)(file) as { createServer: typeof CreateServer });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the process's client is served: the page's flags, and one only the server may see. */
const served: FlagSnapshot = { ...snapshotV(7), flags: { ...snapshotV(7).flags, 'server-secret': servingFlag('s3cret', { clientSide: false }) } };

/** Runs `work` as a Node server would: no window, no document. */
async function onServer<T>(work: () => Promise<T>): Promise<T> {
  vi.stubGlobal('window', undefined);
  vi.stubGlobal('document', undefined);
  try {
    return await work();
  } finally {
    vi.unstubAllGlobals();
  }
}

async function serverRender(context: EvaluationContext) {
  return onServer(async () => {
    const server = createServer({ snapshot: served, transport: createFakeTransport(() => 'hang').transport });
    try {
      return await server.renderPage(context);
    } finally {
      await server.close();
    }
  });
}

const visitor: EvaluationContext = { userId: 'visitor-1', attributes: { plan: 'pro' } };
const textOf = (container: HTMLElement, id: string) => container.querySelector(`#${id}`)?.textContent;

describe('server rendering with svelte/server, then hydrate', () => {
  it('renders the bootstrap for the visitor, with no server-only flag in the HTML or the bootstrap', async () => {
    const { body, bootstrap } = await serverRender(visitor);
    expect(body).toContain('<strong id="pro">For pro users</strong>');
    expect(body).toContain('<p id="a">a1</p>');
    expect(body).toContain('<p id="secret">none</p>');
    expect(body).toContain('<p id="status">ready/polling/bootstrap/7</p>');
    expect(body).not.toContain('s3cret');
    expect(JSON.stringify(bootstrap)).not.toContain('server-secret');
  });

  it('the browser hydrates that HTML without a mismatch, keeping its nodes, then follows its live client', async () => {
    const { body, bootstrap } = await serverRender(visitor);
    const container = document.createElement('div');
    container.innerHTML = body;
    document.body.appendChild(container);
    const elements = () => Array.from(container.querySelectorAll('[id]'));
    const before = elements();
    const warnings = vi.spyOn(console, 'warn');
    const errors = vi.spyOn(console, 'error');

    // The browser's client: the bootstrap as the page carried it (JSON), the same context, no cache.
    const snapshots = snapshotServer(snapshotV(7));
    const browser = createFakeTransport(() => 'hang');
    const client = hangingClient(JSON.parse(JSON.stringify(bootstrap)), { context: visitor, transport: browser.transport });
    const app = hydrate(Page, { target: container, props: { client } });
    flushSync();

    expect(warnings).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.innerHTML).toBe(body);
    // Hydrated, not rendered again: the server's elements are the ones on the page.
    expect(elements()).toHaveLength(4);
    elements().forEach((element, index) => expect(element).toBe(before[index]));

    // Live: a newer snapshot reaches the hydrated page.
    snapshots.publish(snapshotV(8, { a: 'a2' }));
    browser.setHandler(snapshots.handler);
    await client.refresh();
    flushSync();
    expect(textOf(container, 'a')).toBe('a2');
    expect(textOf(container, 'status')).toBe('ready/polling/network/8');
    expect(textOf(container, 'pro')).toBe('For pro users');
    unmount(app);
  });
});
