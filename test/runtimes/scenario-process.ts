import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** One JSON line the scenario printed (scenario/scenario.mjs): its step and what it observed. */
export interface StepLine {
  readonly step: string;
  readonly [observed: string]: unknown;
}

/** How the runtime's process ended; `at` is Date.now() when it did. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly at: number;
}

/** A runtime running the scenario, read one step at a time. */
export interface ScenarioProcess {
  /**
   * Resolves with the line of `step`, and `at`, the Date.now() when it was read. Rejects when
   * the scenario failed, the process ended or `timeoutMs` passed first, with its output.
   */
  step(step: string, timeoutMs?: number): Promise<StepLine & { at: number }>;
  /** Resolves when the process has ended by itself; rejects after `timeoutMs` (and leaves it running). */
  exited(timeoutMs: number): Promise<ProcessExit>;
  /** What the runtime printed so far, stdout then stderr. */
  output(): string;
  /** Kills the process if it still runs; resolves once it has ended. */
  stop(): Promise<void>;
}

/** Starts `command args` in `cwd` with `env` and reads its stdout as the scenario's JSON lines. */
export function startScenarioProcess(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ScenarioProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<StepLine & { at: number }> = [];
  const stdout: string[] = [];
  let stderr = '';
  let exit: ProcessExit | undefined;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());

  createInterface({ input: child.stdout }).on('line', (text) => {
    stdout.push(text);
    try {
      const line = JSON.parse(text) as StepLine;
      if (typeof line?.step == 'string') lines.push({ ...line, at: Date.now() });
    } catch {
      // Not a step: kept in the output for the failure message.
    }
    notify();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = new Promise<ProcessExit>((resolve) => {
    child.on('error', (error) => {
      stderr += `\n${String(error)}`;
      exit ??= { code: null, signal: null, at: Date.now() };
      resolve(exit);
      notify();
    });
    child.on('close', (code, signal) => {
      exit ??= { code, signal, at: Date.now() };
      resolve(exit);
      notify();
    });
  });
  const output = () => `stdout:\n${stdout.join('\n')}\nstderr:\n${stderr}`;

  /** Resolves with what `find` finds, checked on every line and at the exit; rejects with the output after `timeoutMs`. */
  const until = <T>(what: string, timeoutMs: number, find: () => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        let found: T | undefined;
        try {
          found = find();
        } catch (error) {
          finish();
          reject(error);
          return;
        }
        if (found === undefined) return;
        finish();
        resolve(found);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${what}: not within ${timeoutMs} ms\n${output()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  return {
    step: (step, timeoutMs = 10_000) =>
      until(`step "${step}"`, timeoutMs, () => {
        const line = lines.find((candidate) => candidate.step === step);
        if (line) return line;
        const failed = lines.find((candidate) => candidate.step === 'failed');
        if (failed) throw new Error(`the scenario failed before "${step}": ${String(failed.error)}\n${output()}`);
        if (exit) throw new Error(`the process ended (code ${exit.code}, signal ${exit.signal}) before "${step}"\n${output()}`);
        return undefined;
      }),
    exited: (timeoutMs) => until('the process to exit by itself', timeoutMs, () => exit),
    output,
    async stop() {
      if (!exit) child.kill('SIGKILL');
      await ended;
    },
  };
}
