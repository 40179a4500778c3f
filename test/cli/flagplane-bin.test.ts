/** The flagplane bin as a child process: check, serve (as flagplane-server), and a command it does not know. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundleCli } from '../helpers/cli-bundle';
import { DEMO, useServerPool } from '../helpers/reference-server';
import { withTimeout } from '../reference-server/helpers';
import { startBreakingProxy, type BreakingProxy } from './check/breaking-proxy';

const root = resolve(import.meta.dirname, '../..');
const outfile = join(root, 'node_modules', '.cache', 'flagplane-bin', 'flagplane.mjs');
const children: ChildProcess[] = [];
const proxies: BreakingProxy[] = [];
const startServer = useServerPool();

beforeAll(() => bundleCli(root, outfile, join('cli', 'flagplane.ts')));

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/** The bin with `args`, its output collected; `exited` resolves with its exit code. */
function flagplane(args: string[]) {
  const child = spawn(process.execPath, [outfile, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = withTimeout(new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code))), 15_000, 'exit');
  return { child, output, exited };
}

describe('the flagplane bin', () => {
  it('check against the reference server, stream and admin API included: every line ✓, exit 0', async () => {
    const server = await startServer({ port: 0 });
    const run = flagplane(['check', server.baseUrl, '--key', DEMO.prodClientKey, '--stream-url', server.wsUrl, '--admin-token', DEMO.adminToken]);
    expect(await run.exited).toBe(0);
    expect(run.output.stdout.split('\n').filter((line) => line.startsWith('✓'))).toHaveLength(32);
    expect(run.output.stdout).toContain('32 passed, 0 failed');
    expect(run.output.stderr).toBe('');
  });

  it('check --json against a data plane with one fault: that check fails, exit 1', async () => {
    const server = await startServer({ port: 0 });
    const proxy = await startBreakingProxy(server.baseUrl, {
      answer: (request, answer) => (request.method === 'OPTIONS' ? { ...answer, status: 200 } : answer),
    });
    proxies.push(proxy);
    const run = flagplane(['check', proxy.baseUrl, '--key', DEMO.prodClientKey, '--json']);
    expect(await run.exited).toBe(1);
    const report = JSON.parse(run.output.stdout) as { failed: number; checks: Array<{ id: string; ok: boolean; detail: string }> };
    expect(report.failed).toBe(1);
    expect(report.checks.find((entry) => !entry.ok)).toEqual({ id: 'cors.preflight', section: '§10', ok: false, detail: expect.stringMatching(/got OPTIONS \/sdk\/v1\/snapshot: 200/) });
  });

  it('serve is flagplane-server: the banner, then SIGTERM exits 0', async () => {
    const run = flagplane(['serve', '--port', '0']);
    await withTimeout(
      new Promise<void>((resolveBanner) => run.child.stdout!.on('data', () => /base URL[\s\S]*curl/.test(run.output.stdout) && resolveBanner())),
      10_000,
      'the banner',
    );
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output.stdout).toContain('SIGTERM: closing streams, finishing requests');
  });

  it('types writes the module of the flags a key is served: the client key has no server-only flag', async () => {
    const server = await startServer({ port: 0 });
    const run = flagplane(['types', '--base-url', server.baseUrl, '--key', DEMO.prodClientKey]);
    expect(await run.exited).toBe(0);
    expect(run.output.stdout).toMatch(/export type Flags = \{/);
    expect(run.output.stdout).toMatch(/'checkout-button-color': 'blue' \| 'green' \| 'orange'/);
    expect(run.output.stdout).not.toContain('payments-provider');
  });

  it('no command, or one it does not know: exit 2 with the commands', async () => {
    for (const args of [[], ['deploy']]) {
      const run = flagplane(args);
      expect(await run.exited).toBe(2);
      expect(run.output.stderr).toMatch(/Usage: flagplane <command>[\s\S]*serve[\s\S]*check[\s\S]*types/);
    }
  });
});
