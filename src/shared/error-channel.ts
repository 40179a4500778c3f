import { FlagplaneError, messageOf } from './errors';

/**
 * A client's one channel for errors: the app's `onError`, and the `error` events of the
 * event buffer once `bufferTo` gives it one.
 */
export function createErrorChannel(onError: ((error: FlagplaneError) => void) | undefined) {
  let buffer: { error(error: FlagplaneError): void } | null = null;
  /** Only the app's `onError`: for the event sender's own errors, which buffered would feed themselves. */
  const toApp = (error: FlagplaneError) => {
    try {
      onError?.(error);
    } catch {
      // The app's own error handler failed; there is nowhere left to report it.
    }
  };
  const report = (error: FlagplaneError) => {
    buffer?.error(error);
    toApp(error);
  };
  return {
    toApp,
    report,
    /** An app callback (a listener, a custom source or transport) threw. */
    threw: (what: string, cause: unknown) => report(new FlagplaneError('listener', `${what} threw: ${messageOf(cause)}`, cause)),
    bufferTo: (events: { error(error: FlagplaneError): void } | null) => void (buffer = events),
  };
}
