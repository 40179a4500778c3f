/**
 * Runs operations on the same key one after another, in call order, so that an older
 * write can never land after a newer one on an async backing store.
 */
export function createKeyQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, operation: () => Promise<T>): Promise<T> => {
    const result = (tails.get(key) ?? Promise.resolve()).then(operation);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => tails.get(key) === tail && tails.delete(key));
    return result;
  };
}
