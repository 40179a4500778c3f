/**
 * `run` shared by concurrent callers: while one call is pending, every other caller gets the
 * same promise, so a probe of an engine that hangs or is down holds one connection, not one
 * per caller.
 */
export function singleFlight<T>(run: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= run().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
