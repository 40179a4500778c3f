// Issue 23: the React bindings in the apps users build, installed from `npm pack` and built for
// production — a Next.js App Router app (server render, hydration, an edge route, `next dev`)
// and a Vite SPA — checked in Chromium. Builds and servers start once per file; everything
// started is stopped in afterAll, failed or not.
import { rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { browserAvailability, launchChromium } from '../browser/harness';
import { root, stopAll } from './app-process';
import { nextAppChecks } from './next-app-checks';
import { installTarball, packPackage } from './packed-package';
import { viteAppChecks } from './vite-app-checks';

/** What each app's checks reach from the file's hooks. */
export interface AppsSuite {
  readonly server: ReferenceServer;
  readonly browser: Browser;
  /** Extracts the packed package into `<dir>/node_modules/flagplane`. */
  install(dir: string): void;
  /** Build times, printed after the file. */
  readonly timings: Record<string, number>;
}

const availability = browserAvailability();

if (availability.kind === 'fail') {
  describe('apps', () => it('has a Chromium to run on', () => expect.fail(availability.message.replace('test/browser', 'test/apps'))));
} else if (availability.kind === 'skip') {
  console.warn(availability.message.replace('test/browser', 'test/apps').replace('the browser suite', 'the app suite'));
  describe.skip('apps', () => undefined);
} else {
  let server: ReferenceServer | undefined;
  let browser: Browser | undefined;
  let pack: { tarball: string; dir: string } | undefined;
  const timings: Record<string, number> = {};
  const suite: AppsSuite = {
    get server() {
      return server!;
    },
    get browser() {
      return browser!;
    },
    install: (dir) => installTarball(pack!.tarball, dir),
    timings,
  };

  describe('apps built from npm pack', { timeout: 60_000 }, () => {
    beforeAll(async () => {
      const started = Date.now();
      pack = await packPackage();
      timings['npm pack (tsup build with types)'] = Date.now() - started;
      server = await startReferenceServer({ port: 0, host: '127.0.0.1' });
      browser = await launchChromium(availability.executablePath);
    }, 240_000);

    afterAll(async () => {
      await stopAll();
      await browser?.close();
      await server?.close();
      if (pack) rmSync(pack.dir, { recursive: true, force: true });
      try {
        rmdirSync(join(root, 'test/apps/.tmp')); // Unless another run's apps are in it.
      } catch {
        // Not empty, or gone.
      }
      console.info(`test/apps timings: ${Object.entries(timings).map(([step, ms]) => `${step} ${ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`}`).join(', ')}`);
    }, 30_000);

    describe('Next.js App Router (next build + next start)', () => nextAppChecks(suite));
    describe('Vite SPA (vite build + a static server)', () => viteAppChecks(suite));
  });
}
