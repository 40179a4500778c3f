#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServerProcess } from './cli-process';

// dist/reference-server/cli.js serves dist/console/, which the build writes beside it.
runServerProcess(process.argv.slice(2), fileURLToPath(new URL('../console/', import.meta.url))).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
