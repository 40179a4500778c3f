import type { CliIo } from '../reference-server/cli-main';
import { runServerProcess } from '../reference-server/cli-process';
import { runCheck } from './check/run-check';
import { runTypes } from './types/index';

/** A subcommand: resolves with the exit code, or with nothing when it keeps the process running. */
type Command = (argv: readonly string[], io: CliIo, consoleDir: string) => Promise<number | void>;

const COMMANDS: Record<string, { summary: string; run: Command }> = {
  serve: { summary: 'run the reference server, as flagplane-server does (flagplane serve --help)', run: (argv, _io, consoleDir) => runServerProcess(argv, consoleDir) },
  check: { summary: 'check a data plane against docs/protocol.md (flagplane check --help)', run: (argv, io) => runCheck(argv, io) },
  types: { summary: "write a TypeScript module of an environment's flags (flagplane types --help)", run: (argv, io) => runTypes([...argv], io) },
};

export const FLAGPLANE_USAGE = `Usage: flagplane <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(7)}${summary}`)
  .join('\n')}`;

/** `flagplane <command> …`: runs the command named first; no command or an unknown one is exit 2 with the usage. */
export async function runFlagplane(argv: readonly string[], io: CliIo, consoleDir: string): Promise<number | void> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === 'help') {
    io.out(FLAGPLANE_USAGE);
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    io.err(`${name === undefined ? 'flagplane: give a command' : `flagplane: unknown command "${name}"`}\n\n${FLAGPLANE_USAGE}`);
    return 2;
  }
  return command.run(rest, io, consoleDir);
}
