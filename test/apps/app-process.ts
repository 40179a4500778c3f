import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

/**
 * A copy of test/apps/<name> inside the repository (test/apps/.tmp/, git-ignored), so that
 * next, react and vite resolve from the repository's node_modules, once: one React. The app's
 * own package.json stops Node and the bundlers from resolving `flagplane` to the repository
 * itself (a package may import itself by name): it comes from the app's node_modules.
 */
export function copyApp(name: string): { dir: string; remove(): void } {
  mkdirSync(join(root, 'test/apps/.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, 'test/apps/.tmp', `${name}-`));
  cpSync(join(root, 'test/apps', name), dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Turbopack's root: the deepest folder holding both the app and the node_modules it resolves
 * from (a git worktree's node_modules may be a link to another checkout's).
 */
export function turbopackRoot(): string {
  const [a, b] = [realpathSync(root), realpathSync(join(root, 'node_modules'))].map((path) => path.split(sep));
  let shared = 0;
  while (shared < a!.length && a![shared] === b![shared]) shared += 1;
  return a!.slice(0, shared).join(sep) || sep;
}

/** A running command of node_modules/.bin, in its own process group, with its output kept. */
export interface AppProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the exit code; rejects if it ran longer than `timeoutMs`. */
  exited(timeoutMs: number): Promise<number | null>;
  /** SIGTERM to the whole group, SIGKILL after 3 s; resolves when it is gone. */
  stop(): Promise<void>;
}

const running = new Set<AppProcess>();
// A test process that ends without its afterAll (killed by a timeout, Ctrl-C) leaves no server behind.
process.once('exit', () => running.forEach((app) => app.child.pid && tryKill(-app.child.pid, 'SIGKILL')));

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // The group is gone already.
  }
}

export function run(command: string, args: string[], cwd: string, env: Record<string, string>): AppProcess {
  const child = spawn(bin(command), args, { cwd, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const signal = (name: NodeJS.Signals) => tryKill(-child.pid!, name);
  const app: AppProcess = {
    child,
    output: () => text,
    exited: (timeoutMs) =>
      Promise.race([exit, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${command} ${args.join(' ')} still running after ${timeoutMs} ms:\n${text}`)), timeoutMs).unref())]),
    async stop() {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 3000);
      await exit;
      clearTimeout(timer);
      signal('SIGKILL'); // Children that outlived their parent.
      running.delete(app);
    },
  };
  running.add(app);
  return app;
}

/** Stops every process {@link run} started that is still running. */
export const stopAll = () => Promise.all([...running].map((app) => app.stop()));

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits until `url` answers (any status), or fails with the process's output. */
export async function waitForHttp(url: string, app: AppProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(5000) });
      return;
    } catch {
      if (app.child.exitCode !== null || Date.now() > deadline) throw new Error(`${url} never answered:\n${app.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
