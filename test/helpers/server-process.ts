import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/** The bundled reference-server CLI running as a child process, as `flagplane-server` runs. */
export interface ServerProcess {
  readonly proc: ChildProcess;
  /** `http://127.0.0.1:port`, from the banner. */
  readonly baseUrl: string;
  readonly port: number;
  readonly output: { stdout: string; stderr: string };
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the process unless it already exited; resolves once it has. */
  kill(): Promise<void>;
}

/**
 * Starts `node <cliBundle> --port 0 ...args` in `cwd` and resolves once its banner names the
 * base URL; rejects (and kills it) if it exits first or takes longer than `timeoutMs`.
 */
export async function startServerProcess(cliBundle: string, args: readonly string[], cwd: string, timeoutMs = 15_000): Promise<ServerProcess> {
  const proc = spawn(process.execPath, [cliBundle, '--port', '0', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  proc.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  proc.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const kill = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no banner after ${timeoutMs} ms: ${output.stderr}`)), timeoutMs);
      const check = () => {
        const match = /base URL\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output.stdout);
        if (match) resolve(match[1]!);
      };
      proc.stdout!.on('data', check);
      void exited.then(({ code }) => reject(new Error(`the server exited with ${code} before its banner: ${output.stderr}`)));
    });
    return { proc, baseUrl, port: Number(new URL(baseUrl).port), output, exited, kill };
  } catch (error) {
    await kill();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
