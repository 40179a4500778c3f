/** A set of listeners; `subscribe` returns its own unsubscribe function. */
export class Subscribable<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  subscribe(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Calls every listener; one that throws never stops the others. */
  emit(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
