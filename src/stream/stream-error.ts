import { FlagplaneError } from '../shared/errors';

/**
 * A stream failure, reported through `onError` (code `'stream'`). `closeCode` is the close
 * code the server sent (4400, 4401, 4403), or `null` when the failure was not a close:
 * a transport error, a frame that breaks protocol 1, silence, or a socket that could not open.
 */
export class StreamError extends FlagplaneError {
  override name = 'StreamError';
  constructor(
    readonly closeCode: number | null,
    /** The server's close reason, or what went wrong. */
    readonly reason: string,
    cause?: unknown,
  ) {
    super('stream', `stream ${closeCode ?? 'failed'}: ${reason}`, cause);
  }
}
