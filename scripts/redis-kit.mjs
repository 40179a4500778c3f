// A throwaway redis-server for a bench (scripts/bench-large.mjs): on a free loopback port, in a
// temporary folder, nothing persisted; `undefined` when no redis-server is on PATH (or at
// FLAGPLANE_REDIS_SERVER), so that the bench skips its Redis rows with a note.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function redisBinary() {
  if (process.env.FLAGPLANE_REDIS_SERVER) return process.env.FLAGPLANE_REDIS_SERVER;
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** Starts redis-server; resolves with { url, stop, kill } once it accepts connections, or undefined without one. */
export async function startThrowawayRedis() {
  const binary = redisBinary();
  if (!binary) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'flagplane-bench-redis-'));
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  let output = '';
  let timer;
  const started = await new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), 10_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve(true);
    });
    exited.then(() => resolve(false));
  });
  clearTimeout(timer);
  if (!started) {
    await stop();
    throw new Error(`redis-server did not start: ${output}`);
  }
  // kill(): for a process about to exit, which cannot wait for stop().
  const kill = () => (child.kill('SIGKILL'), rmSync(dir, { recursive: true, force: true }));
  return { url: `redis://127.0.0.1:${port}`, stop, kill };
}
