import { existsSync } from 'node:fs';
import { runCli } from './cli-main';
import type { ReferenceServer } from './server';

/**
 * The reference server as this process's job (`flagplane-server`, `flagplane serve`): runs the
 * CLI on `argv` with the console in `consoleDir`, and on SIGINT or SIGTERM closes the server
 * and exits; a second signal exits at once with 1.
 */
export async function runServerProcess(argv: readonly string[], consoleDir: string): Promise<void> {
  let server: ReferenceServer | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    if (!server) process.exit(0);
    console.log(`${signal}: closing streams, finishing requests`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  // Installed before the server starts, so that an early signal still exits with 0.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const outcome = await runCli(
    argv,
    { out: (text) => console.log(text), err: (text) => console.error(text) },
    { dir: consoleDir, built: existsSync(`${consoleDir}console.js`) },
  );
  if (outcome.kind === 'exit') {
    process.exitCode = outcome.code;
    return;
  }
  server = outcome.server;
}
