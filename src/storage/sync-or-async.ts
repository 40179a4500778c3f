import { messageOf, StorageError } from '../shared/errors';

/**
 * Runs a storage call and hands its result to `onValue` (if given) — synchronously when it
 * is not a promise, so a synchronous adapter (localStorage) is read before `createClient`
 * returns.
 * A throw or rejection, of the call or of `onValue` (a record that is not JSON), is
 * reported as a `StorageError` naming the action and the key, never thrown.
 */
export function settleStorage<T>(
  call: () => T | PromiseLike<T>,
  action: 'reading' | 'writing',
  key: string,
  report: (error: StorageError) => void,
  onValue?: (value: T) => void,
): void {
  const fail = (cause: unknown) => report(new StorageError(`${action} "${key}" failed: ${messageOf(cause)}`, cause));
  try {
    const result = call();
    if (typeof (result as PromiseLike<T> | null)?.then === 'function') (result as PromiseLike<T>).then(onValue).then(undefined, fail);
    else onValue?.(result as T);
  } catch (cause) {
    fail(cause);
  }
}
