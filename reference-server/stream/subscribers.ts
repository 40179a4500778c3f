/**
 * The subscribed streams of each environment, kept as they subscribe and close, so a publish
 * reaches its subscribers without a scan of every open stream.
 */
export interface SubscriberIndex<T> {
  add(environmentId: string, subscriber: T): void;
  remove(environmentId: string, subscriber: T): void;
  /** The subscribers of the environment now, in the order they subscribed: a copy, which later changes leave as it is. */
  of(environmentId: string): T[];
  /** How many streams are subscribed to the environment. */
  count(environmentId: string): number;
}

export function createSubscriberIndex<T>(): SubscriberIndex<T> {
  const byEnvironment = new Map<string, Set<T>>();
  return {
    add(environmentId, subscriber) {
      let subscribers = byEnvironment.get(environmentId);
      if (!subscribers) byEnvironment.set(environmentId, (subscribers = new Set()));
      subscribers.add(subscriber);
    },
    remove(environmentId, subscriber) {
      const subscribers = byEnvironment.get(environmentId);
      if (!subscribers?.delete(subscriber)) return;
      if (subscribers.size === 0) byEnvironment.delete(environmentId);
    },
    of: (environmentId) => [...(byEnvironment.get(environmentId) ?? [])],
    count: (environmentId) => byEnvironment.get(environmentId)?.size ?? 0,
  };
}
