import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sleep } from '../browser/harness';
import { DEMO } from '../helpers/reference-server';
import { FLAG, openRecorded, publishAndWait, served } from './app-page';
import { copyApp, freePort, run, turbopackRoot, waitForHttp, type AppProcess } from './app-process';
import type { AppsSuite } from './apps.test';

const SERVER_ONLY = 'payments-provider';

/** Checks of test/apps/next-app: next build, then next start (and next dev once). */
export function nextAppChecks(suite: AppsSuite): void {
  let app: ReturnType<typeof copyApp> | undefined;
  let server: AppProcess | undefined;
  let origin = '';
  let buildOutput = '';
  const env = () => ({
    FLAGS_URL: suite.server.baseUrl,
    FLAGS_SERVER_KEY: DEMO.prodServerKey,
    NEXT_PUBLIC_FLAGS_URL: suite.server.baseUrl,
    NEXT_PUBLIC_FLAGS_CLIENT_KEY: DEMO.prodClientKey,
    FLAGPLANE_TURBOPACK_ROOT: turbopackRoot(),
  });
  const start = async (command: 'start' | 'dev') => {
    const port = await freePort();
    const process = run('next', [command, '-p', String(port), '-H', '127.0.0.1'], app!.dir, env());
    await waitForHttp(`http://127.0.0.1:${port}/api/flag`, process, 60_000);
    return { process, origin: `http://127.0.0.1:${port}` };
  };

  beforeAll(async () => {
    app = copyApp('next-app');
    suite.install(app.dir);
    const started = Date.now();
    const build = run('next', ['build'], app.dir, env());
    const code = await build.exited(240_000);
    suite.timings['next build'] = Date.now() - started;
    buildOutput = build.output();
    if (code !== 0) throw new Error(`next build failed:\n${buildOutput}`);
    ({ process: server, origin } = await start('start'));
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    app?.remove();
  }, 30_000);

  it('next build waits on no flag: a page that reads the request first is dynamic, and one that awaits ready() first has its fetch ended by Next, not retried until readyTimeout', () => {
    const generating = /Generating static pages[^\n]*\bin ([\d.]+)(ms|s)\b/.exec(buildOutput);
    expect(generating, buildOutput).not.toBeNull();
    const ms = Number(generating![1]) * (generating![2] === 's' ? 1000 : 1);
    // A fetch retried as a network failure would wait for readyTimeout (5 s) on /flags-first.
    expect(ms, buildOutput).toBeLessThan(2000);
    expect(buildOutput).toMatch(/ƒ \/\s/);
    expect(buildOutput).toMatch(/ƒ \/flags-first\s/);
    expect(buildOutput).not.toContain('[flags]');
  });

  it('the page whose build-time fetch Next ended serves the flags of each request', async () => {
    const html = await (await fetch(`${origin}/flags-first`)).text();
    expect(/id="provider"[^>]*>([^<]*)</.exec(html)?.[1]).toBe(served(suite.server, { attributes: { country: 'DE' } }, 'anyone', SERVER_ONLY));
  });

  it('the server HTML and the first client render agree, no server-only flag reaches the page, and a publish shows within 1 s', async () => {
    const context = { attributes: { country: 'US' } };
    // A visitor the rollout serves something else than the fallback ('blue'): a flash would show.
    const anonymousId = Array.from({ length: 50 }, (_, i) => `visitor-${i}`).find((id) => served(suite.server, context, id) !== 'blue')!;
    const cookies = { 'anon-id': anonymousId, country: 'US' };
    const cookie = Object.entries(cookies).map(([name, value]) => `${name}=${value}`).join('; ');
    const html = await (await fetch(`${origin}/`, { headers: { cookie } })).text();
    const htmlValue = /id="checkout"[^>]*>([^<]*)</.exec(html)?.[1];
    expect(htmlValue).toBe(served(suite.server, context, anonymousId));
    expect(html).toMatch(/Paying with (<!-- -->)?(stripe|adyen)</); // the server-only flag, decided on the server
    const rsc = await (await fetch(`${origin}/`, { headers: { cookie, rsc: '1' } })).text();
    for (const [where, text] of [['HTML', html], ['RSC payload', rsc]] as const) {
      expect(text, `${where} carries the bootstrap`).toContain(FLAG);
      const at = text.indexOf(SERVER_ONLY);
      expect(at < 0 ? '' : `…${text.slice(Math.max(0, at - 150), at + 150)}…`, `${where} carries a server-only flag`).toBe('');
    }

    const page = await openRecorded(suite.browser, `${origin}/`, cookies);
    try {
      await page.live;
      await sleep(300);
      expect(await page.values(), 'from the HTML to hydration and the first fetch').toEqual([htmlValue]);
      // The flight data of the page as the browser ran it: the inline `self.__next_f.push(…)` scripts.
      const payload = await page.page.evaluate(() => Array.from(document.scripts).map((script) => script.textContent ?? '').filter((text) => text.includes('__next_f')).join('\n'));
      expect(payload).toContain(FLAG);
      expect(payload.includes(SERVER_ONLY), 'the inline flight data carries a server-only flag').toBe(false);
      // A reload before the server's client polls again renders the older version: the page
      // must take the newer one after hydrating, not start from a copy it cached.
      const published = await publishAndWait(suite.server, page.page, htmlValue!, async () => {
        await page.page.reload();
        await page.page.waitForFunction((value) => document.getElementById('checkout')?.textContent !== value, htmlValue);
        await sleep(300);
      });
      suite.timings['Next publish → page'] = published.ms;
      expect(published.ms, 'publish → page').toBeLessThan(1000);
      expect(published.values).toEqual([htmlValue, published.value]);
      expect(page.problems.join('\n')).toBe('');
    } finally {
      await page.context.close();
    }
    expect(server!.output()).not.toMatch(/\[flags\]|Error/);
  });

  it('an edge-runtime route handler evaluates a flag with the server key', async () => {
    const manifest = JSON.parse(readFileSync(join(app!.dir, '.next/server/middleware-manifest.json'), 'utf8')) as { functions: Record<string, unknown> };
    expect(Object.keys(manifest.functions)).toContain('/api/flag/route');
    const response = await fetch(`${origin}/api/flag?country=DE`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ provider: served(suite.server, { attributes: { country: 'DE' } }, 'anyone', SERVER_ONLY) });
  });

  it('next dev starts, serves the page once and stops', async () => {
    const dev = await start('dev');
    try {
      const response = await fetch(`${dev.origin}/`, { headers: { cookie: 'anon-id=visitor-0; country=US' } });
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/id="checkout"[^>]*>(blue|green|orange)</);
    } finally {
      await dev.process.stop();
    }
  }, 120_000);
}
