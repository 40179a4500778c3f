/** A store engine could not be reached or answered unexpectedly; the message names it. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  readonly code = 'engine_unavailable';
  constructor(
    readonly engine: 'redis' | 'postgres',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The URL without its password, fit for a message or a banner. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}
