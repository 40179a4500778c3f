import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import type { BuiltPackage } from './built-package';

/** The example worker of docs/runtimes.md and the test's entry around it. */
export const WORKERS_DIR = fileURLToPath(new URL('./workers/', import.meta.url));

/**
 * The worker as wrangler would ship it: `test-entry.js` (the example worker plus the test's
 * routes) bundled by esbuild against the built package in `pkg.home/node_modules`, with the
 * conditions wrangler resolves `exports` with.
 */
export async function bundleWorker(pkg: BuiltPackage): Promise<string> {
  const dir = join(pkg.home, 'worker');
  cpSync(WORKERS_DIR, dir, { recursive: true });
  const result = await build({
    entryPoints: [join(dir, 'test-entry.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A worker in workerd (miniflare), and every line it wrote to stdout or stderr. */
export interface WorkerRun {
  readonly mf: Miniflare;
  readonly output: string[];
  /** Stops workerd and removes the temporary folder miniflare made for it. */
  dispose(): Promise<void>;
  /** `dispatchFetch` of `path`, its JSON body. */
  get<T = Record<string, unknown>>(path: string): Promise<T>;
}

/** Starts workerd with `script` on `compatibilityDate`; `bindings` become the worker's `env`. */
export async function startWorker(script: string, compatibilityDate: string, bindings: Record<string, string>): Promise<WorkerRun> {
  const output: string[] = [];
  const collect = (stream: Readable) => stream.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n').filter(Boolean)));
  const ownTmp = miniflareTmpFolders();
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate,
    bindings,
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      collect(stdout);
      collect(stderr);
    },
  });
  await mf.ready;
  return {
    mf,
    output,
    dispose: () => disposeWithTmp(mf, ownTmp),
    async get<T>(path: string) {
      const response = await mf.dispatchFetch(`http://worker.test${path}`);
      const text = await response.text();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
      return JSON.parse(text) as T;
    },
  };
}

/**
 * A proxy in front of the reference server that counts snapshot requests and holds each one
 * `delayMs` (settable), so that a request's fetch is still in flight when a later request comes.
 */
export async function slowProxy(target: string): Promise<{ url: string; delayMs: number; snapshotRequests: number; close(): Promise<void> }> {
  const proxy = {
    url: '',
    delayMs: 0,
    snapshotRequests: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((incoming, outgoing) => {
    const snapshot = incoming.url?.startsWith('/sdk/v1/snapshot');
    if (snapshot) proxy.snapshotRequests++;
    const delay = snapshot ? proxy.delayMs : 0;
    setTimeout(() => {
      const upstream = forward(target + incoming.url, { method: incoming.method, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return proxy;
}

/**
 * Whether workerd starts here. It cannot: the suite is skipped with one line, except on CI
 * (`CI=true`), where that is a failure: a runtime suite that passes without its runtime
 * proves nothing.
 */
export async function workerdAvailability(
  env: NodeJS.ProcessEnv = process.env,
  start: () => Promise<void> = startAndStop,
): Promise<{ kind: 'run' } | { kind: 'skip' | 'fail'; message: string }> {
  try {
    await start();
    return { kind: 'run' };
  } catch (cause) {
    const why = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    if (env.CI === 'true') return { kind: 'fail', message: `test/runtimes/workerd: workerd (miniflare) cannot start, and CI=true: ${why}` };
    return { kind: 'skip', message: `test/runtimes/workerd: workerd (miniflare) cannot start (${why}); skipping the Workers suite` };
  }
}

/** Starts workerd with a trivial worker and stops it. */
async function startAndStop(): Promise<void> {
  const before = miniflareTmpFolders();
  const mf = new Miniflare({ modules: true, script: 'export default { fetch: () => new Response("ok") }', compatibilityDate: '2024-01-01' });
  await mf.ready;
  await disposeWithTmp(mf, before);
}

/** The names of miniflare's temporary folders (`<tmp>/miniflare-<hex>`) that exist now. */
function miniflareTmpFolders(): Set<string> {
  return new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('miniflare-')));
}

/**
 * Disposes `mf`, then removes the miniflare folders that were not there `before` it started:
 * miniflare's dispose() removes its own without waiting for it, and a test process may end first.
 */
async function disposeWithTmp(mf: Miniflare, before: Set<string>): Promise<void> {
  await mf.dispose();
  for (const name of miniflareTmpFolders()) if (!before.has(name)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
}
