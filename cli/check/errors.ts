/** A check's expectation did not hold; `message` says what came back instead. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  readonly code = 'check_failed';
}

/** A request or a stream frame did not arrive within `--timeout`: the check it belongs to fails. */
export class ProbeTimeoutError extends Error {
  override readonly name = 'ProbeTimeoutError';
  readonly code = 'probe_timeout';
  constructor(what: string, timeoutMs: number) {
    super(`no answer to ${what} within ${timeoutMs} ms`);
  }
}

/** The command line cannot be run as given (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'usage';
}
