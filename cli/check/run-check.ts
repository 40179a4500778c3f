import type { CliIo } from '../../reference-server/cli-main';
import { loadOptionalPackage, MissingPackageError } from '../../reference-server/stores/optional-package';
import { CHECK_USAGE, parseCheckArgs, type CheckArgs } from './check-args';
import { UsageError } from './errors';
import { formatJson, formatResult, formatSummary } from './report';
import { runChecks } from './run-checks';

/** `flagplane check <base_url> --key <sdk-key> …`: resolves with the exit code (0 passed, 1 a check failed, 2 bad usage). */
export async function runCheck(argv: readonly string[], io: CliIo): Promise<number> {
  let args: CheckArgs;
  try {
    args = parseCheckArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`flagplane check: ${error.message}\n\n${CHECK_USAGE}`);
    return 2;
  }
  if (args.kind === 'help') {
    io.out(CHECK_USAGE);
    return 0;
  }
  const { target, json } = args;
  if (target.streamUrl !== undefined) {
    try {
      await loadOptionalPackage('--stream-url', 'ws');
    } catch (error) {
      if (!(error instanceof MissingPackageError)) throw error;
      io.err(`flagplane check: ${error.message}`);
      return 2;
    }
  }
  const name = target.baseUrl.href.replace(/\/$/, '');
  const results = await runChecks(target, json ? undefined : (result) => io.out(formatResult(result)));
  io.out(json ? formatJson(name, results) : formatSummary(name, results));
  return results.every((result) => result.ok) ? 0 : 1;
}
