#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCli } from './cli-main';
import type { ReferenceServer } from './server';

let server: ReferenceServer | undefined;
let stopping = false;

function stop(signal: NodeJS.Signals): void {
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
}

async function main(): Promise<void> {
  // Installed before the server starts, so that an early signal still exits with 0.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // dist/reference-server/cli.js serves dist/console/, which the build writes beside it.
  const consoleDir = fileURLToPath(new URL('../console/', import.meta.url));
  const outcome = await runCli(
    process.argv.slice(2),
    { out: (text) => console.log(text), err: (text) => console.error(text) },
    { dir: consoleDir, built: existsSync(`${consoleDir}console.js`) },
  );
  if (outcome.kind === 'exit') {
    process.exitCode = outcome.code;
    return;
  }
  server = outcome.server;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
