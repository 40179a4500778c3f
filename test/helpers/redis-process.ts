import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './engine-binaries';

/** A `redis-server` of one test file, in a temporary folder, with nothing persisted. */
export interface RedisProcess {
  readonly url: string;
  /** Stops the server and keeps its port, for {@link RedisProcess.restart} (an outage, as clients see it). */
  halt(): Promise<void>;
  /** Starts a halted server again on its port (empty: nothing is persisted). */
  restart(): Promise<void>;
  /** Sends a signal to the running server (SIGSTOP: a server that hangs without closing its sockets). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

export async function startRedis(binary: string): Promise<RedisProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'flagplane-redis-'));
  const port = await freePort();
  let running = await spawnRedis(binary, port, dir).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    halt: () => running.stop(),
    async restart() {
      running = await spawnRedis(binary, port, dir);
    },
    signal: (signal) => void running.child.kill(signal),
    async stop() {
      running.child.kill('SIGCONT');
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function spawnRedis(binary: string, port: number, dir: string) {
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Nothing of a server that never came up may outlive the suite.
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start: ${output}`));
    }, 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output}`));
    });
  });
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
