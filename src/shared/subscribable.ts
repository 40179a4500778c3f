/** A set of listeners; `subscribe` returns its own unsubscribe function. */
export function createSubscribable<T>(onListenerError: (error: unknown) => void) {
  const listeners = new Set<(value: T) => void>();
  return {
    subscribe(listener: (value: T) => void): () => void {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    /** Calls every listener; one that throws never stops the others. */
    emit(value: T): void {
      for (const listener of [...listeners]) {
        try {
          // One removed meanwhile (unsubscribed, or close() by an earlier listener) hears nothing more.
          if (listeners.has(listener)) listener(value);
        } catch (error) {
          onListenerError(error);
        }
      }
    },
    clear: () => listeners.clear(),
  };
}
