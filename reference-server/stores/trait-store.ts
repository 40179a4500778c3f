import type { StoredTraits } from './records';

/** The per-user trait overlay of each environment (protocol.md §4, GET /sdk/v1/identity). */
export interface TraitStore {
  get(environmentId: string, userId: string): StoredTraits | undefined;
  set(environmentId: string, userId: string, traits: StoredTraits): void;
  /** Every user of the environment with their traits. */
  entries(environmentId: string): Array<[userId: string, traits: StoredTraits]>;
}

/** `usersKept`: users with traits per environment; writing a full one drops the least recently written. */
export function createTraitStore(initial: Readonly<Record<string, Record<string, StoredTraits>>> = {}, usersKept = Infinity, onEvict = () => {}): TraitStore {
  const byEnvironment = new Map<string, Map<string, StoredTraits>>();
  const store: TraitStore = {
    get: (environmentId, userId) => byEnvironment.get(environmentId)?.get(userId),
    set(environmentId, userId, traits) {
      let users = byEnvironment.get(environmentId);
      if (!users) {
        users = new Map();
        byEnvironment.set(environmentId, users);
      }
      // Deleted first, so that the Map's order is the order of the last writes.
      users.delete(userId);
      users.set(userId, structuredClone(traits));
      for (const oldest of users.keys()) {
        if (users.size <= usersKept) break;
        users.delete(oldest);
        onEvict();
      }
    },
    entries: (environmentId) => [...(byEnvironment.get(environmentId) ?? [])],
  };
  for (const [environmentId, users] of Object.entries(initial)) {
    for (const [userId, traits] of Object.entries(users)) store.set(environmentId, userId, traits);
  }
  return store;
}
