const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/**
 * Runs `produce` and hands its result to `onValue` — synchronously when it is not a
 * promise, so a synchronous adapter (localStorage) is read before `createClient` returns.
 */
export function whenSettled<T>(produce: () => T | PromiseLike<T>, onValue: (value: T) => void, onError: (error: unknown) => void): void {
  let result: T | PromiseLike<T>;
  try {
    result = produce();
  } catch (error) {
    onError(error);
    return;
  }
  if (isThenable(result)) (result as PromiseLike<T>).then(onValue, onError);
  else onValue(result as T);
}
