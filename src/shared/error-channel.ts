import { FlagplaneError, messageOf } from './errors';

type ErrorSink = (error: FlagplaneError) => void;

/** The app's `onError`, guarded: what it throws has nowhere left to go. */
export const guardOnError =
  (onError: ErrorSink | undefined): ErrorSink =>
  (error) => {
    try {
      onError?.(error);
    } catch {
      // The app's own error handler failed; there is nowhere left to report it.
    }
  };

/**
 * A client's one channel for errors: the `error` event of the event buffer (`null` with
 * events off), then the app's guarded `onError`.
 */
export function createErrorChannel(toApp: ErrorSink, events: { error: ErrorSink } | null) {
  const report = (error: FlagplaneError) => {
    events?.error(error);
    toApp(error);
  };
  return {
    report,
    /** An app callback (a listener, a custom source or transport) threw. */
    threw: (what: string, cause: unknown) => report(new FlagplaneError('listener', `${what} threw: ${messageOf(cause)}`, cause)),
  };
}
