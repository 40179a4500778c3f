/**
 * `ws` is an optional peer dependency (issue 23): browser apps never install it. Where it is
 * needed and missing — `flagplane/adapters/ws`, the reference server — the error says to
 * install it. A missing package is simulated by an import that fails as Node's does.
 */
import { describe, expect, it } from 'vitest';
import { wsMissing, wsOpener, type ImportWs } from '../../adapters/ws-opener';
import { loadOptionalPackage, MissingPackageError } from '../../reference-server/stores/optional-package';
import type { Scheduler } from '../../src/shared/scheduler';
import { recordStream } from '../stream/harness';
import packageJson from '../../package.json';

/** What Node's import() throws for a package that is not installed. */
const notInstalled = () =>
  Object.assign(new Error("Cannot find package 'ws' imported from /app/node_modules/flagplane/dist/adapters/ws.js"), { code: 'ERR_MODULE_NOT_FOUND' });

const INSTALL = 'flagplane/adapters/ws needs the ws package (Node 20 has no global WebSocket): npm install ws';

/** Timers that fire only when the test says so. */
function manualScheduler() {
  const timers = new Map<number, () => void>();
  let next = 0;
  const scheduler: Scheduler = {
    now: () => 0,
    random: () => 0,
    setTimeout: (callback) => (timers.set(++next, callback), next),
    clearTimeout: (id) => void timers.delete(id as number),
  };
  const fire = () => [...timers].forEach(([id, callback]) => (timers.delete(id), callback()));
  return { scheduler, fire };
}

describe('ws in package.json', () => {
  it('is an optional peer dependency, and a devDependency for the repository, not a dependency', () => {
    const pkg = packageJson as unknown as Record<string, Record<string, unknown> | undefined>;
    expect(pkg.dependencies?.ws).toBeUndefined();
    expect(pkg.peerDependencies?.ws).toBe('^8.0.0');
    expect(pkg.peerDependenciesMeta?.ws).toEqual({ optional: true });
    expect(pkg.devDependencies?.ws).toBeDefined();
  });
});

describe('flagplane/adapters/ws without ws installed', () => {
  it('imports fine; the stream reports `npm install ws`, then stops at the next attempt', async () => {
    let imports = 0;
    const importWs: ImportWs = () => (imports++, Promise.reject(notInstalled()));
    const { scheduler, fire } = manualScheduler();
    const stream = recordStream({ transport: wsOpener(importWs), scheduler });
    await new Promise((resolve) => setTimeout(resolve, 0));
    const messages = () => stream.log.flatMap((entry) => (entry.type === 'error' ? [(entry.error.cause as Error)?.message] : []));
    expect(messages()).toEqual([INSTALL]);
    expect(stream.log.filter((entry) => entry.type === 'connection')).toEqual([{ type: 'connection', connection: 'reconnecting' }]);
    fire();
    expect(stream.log.at(-1)).toEqual({ type: 'connection', connection: 'stopped' });
    expect(messages()).toEqual([INSTALL, INSTALL]);
    expect(imports).toBe(1);
  });

  it('names the package only when ws itself is missing: another failure is passed on as it is', () => {
    expect(wsMissing(notInstalled())).toMatchObject({ message: INSTALL, cause: expect.objectContaining({ code: 'ERR_MODULE_NOT_FOUND' }) });
    const brokenDependency = Object.assign(new Error("Cannot find package 'bufferutil' imported from /app/node_modules/ws/lib/buffer-util.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    expect(wsMissing(brokenDependency)).toBe(brokenDependency);
  });
});

describe('the reference server without ws installed', () => {
  it('fails to start with a MissingPackageError saying `npm install ws` (the CLI prints it and exits 1)', async () => {
    const loading = loadOptionalPackage('the reference server', 'ws', () => Promise.reject(notInstalled()));
    await expect(loading).rejects.toThrow(new MissingPackageError('the reference server', 'ws'));
    await expect(loading).rejects.toThrow('the reference server needs the ws package: npm install ws');
  });
});
