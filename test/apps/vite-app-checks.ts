import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO } from '../helpers/reference-server';
import { openRecorded, publishAndWait } from './app-page';
import { copyApp, run } from './app-process';
import type { AppsSuite } from './apps.test';

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** dist/ over HTTP on 127.0.0.1, index.html for every path a file does not match. */
async function serveStatic(dir: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url!, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    let body: Buffer;
    let type = TYPES[extname(path)] ?? 'application/octet-stream';
    try {
      body = readFileSync(join(dir, path));
    } catch {
      body = readFileSync(join(dir, 'index.html'));
      type = TYPES['.html']!;
    }
    response.writeHead(200, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/** Checks of test/apps/vite-app: tsc, vite build, then dist/ in Chromium. */
export function viteAppChecks(suite: AppsSuite): void {
  let app: ReturnType<typeof copyApp> | undefined;
  let site: { origin: string; server: Server } | undefined;
  let buildOutput = '';

  beforeAll(async () => {
    app = copyApp('vite-app');
    suite.install(app.dir);
    const types = run('tsc', ['-p', '.'], app.dir, {});
    if ((await types.exited(120_000)) !== 0) throw new Error(`tsc -p test/apps/vite-app failed against the packed types:\n${types.output()}`);
    const started = Date.now();
    const build = run('vite', ['build'], app.dir, { VITE_FLAGS_URL: suite.server.baseUrl, VITE_FLAGS_CLIENT_KEY: DEMO.prodClientKey });
    const code = await build.exited(120_000);
    suite.timings['vite build'] = Date.now() - started;
    buildOutput = build.output();
    if (code !== 0) throw new Error(`vite build failed:\n${buildOutput}`);
    site = await serveStatic(join(app.dir, 'dist'));
  }, 240_000);

  afterAll(async () => {
    await new Promise((resolve) => (site ? site.server.close(resolve) : resolve(undefined)));
    app?.remove();
  });

  it("bundles the package's browser build, and one React (a second copy would fail every hook)", () => {
    const reactFrom = (file: string) => realpathSync(createRequire(join(app!.dir, file)).resolve('react'));
    expect(reactFrom('node_modules/flagplane/dist/react/index.js')).toBe(reactFrom('package.json'));
    const assets = join(app!.dir, 'dist/assets');
    const code = readdirSync(assets).filter((file) => file.endsWith('.js')).map((file) => readFileSync(join(assets, file), 'utf8')).join('\n');
    // The default build's fetch asks for `no-store` outside pages; the browser build has no such branch.
    expect(code).not.toContain('no-store');
  });

  it('renders the served value, shows a publish within 1 s, and logs no error', async () => {
    const page = await openRecorded(suite.browser, `${site!.origin}/`);
    try {
      await page.live;
      const shown = await page.page.waitForFunction(() => {
        const text = document.getElementById('checkout')?.textContent;
        return text === 'green' || text === 'orange' ? text : undefined;
      });
      const value = (await shown.jsonValue()) as string;
      const published = await publishAndWait(suite.server, page.page, value);
      suite.timings['Vite publish → page'] = published.ms;
      expect(published.ms, 'publish → page').toBeLessThan(1000);
      // A page without a server render starts from the fallback; the first snapshot follows.
      expect(published.values).toEqual(['blue', value, published.value]);
      expect(page.problems.join('\n')).toBe('');
    } finally {
      await page.context.close();
    }
  });
}
