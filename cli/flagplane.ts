#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runFlagplane } from './commands';

// dist/cli/flagplane.js serves dist/console/, which the build writes beside dist/cli/.
const consoleDir = fileURLToPath(new URL('../console/', import.meta.url));
const io = { out: (text: string) => console.log(text), err: (text: string) => console.error(text) };

runFlagplane(process.argv.slice(2), io, consoleDir).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
