import type { FlagsClient, JsonValue } from '../src/index';
import { isRecord } from './guards';

type Wrapped = 'get' | 'getDetails' | 'setOverrides';

/** What the devtools learn by wrapping three of the client's methods, and how to undo it. */
export interface ReadWatch {
  /** Every key the app read since the mount, with the fallback of its last read (`undefined`: none given). */
  readonly reads: ReadonlyMap<string, JsonValue | undefined>;
  /** The overrides the app itself set (found at the mount, then each `setOverrides` call of the app). */
  appOverrides(): Record<string, JsonValue>;
  /** The client's own methods, which read and override without being watched. */
  readonly own: Pick<FlagsClient, Wrapped>;
  /** Puts each method back as it was, unless something wrapped it again after the devtools. */
  restore(): void;
}

/**
 * Wraps `client.get` and `client.getDetails` to note the keys the app reads (a key with no
 * flag is served its fallback: the core keeps no list of them), and `client.setOverrides`,
 * so that the app's own overrides and the panel's are applied together by `apply` instead
 * of replacing each other. `readKey` hears of each key read for the first time.
 */
export function watchReads(client: FlagsClient, readKey: () => void, apply: () => void): ReadWatch {
  const own = { get: client.get, getDetails: client.getDetails, setOverrides: client.setOverrides };
  const reads = new Map<string, JsonValue | undefined>();
  let appOverrides = overridesServed(client);

  const note = (key: unknown, fallback: JsonValue | undefined) => {
    if (typeof key !== 'string') return;
    const isNew = !reads.has(key);
    reads.set(key, fallback);
    if (isNew) readKey();
  };
  const wrappers: Pick<FlagsClient, Wrapped> = {
    get: ((key: string, fallback?: JsonValue) => (note(key, fallback), own.get(key, fallback!))) as FlagsClient['get'],
    getDetails: ((key: string, fallback?: JsonValue) => (note(key, fallback), own.getDetails(key, fallback!))) as FlagsClient['getDetails'],
    setOverrides(values) {
      // Anything but an object goes to the client as it is, which reports it (a ConfigError).
      if (values != null && !isRecord(values)) return own.setOverrides(values);
      appOverrides = { ...values };
      apply();
    },
  };
  const descriptors = new Map<Wrapped, PropertyDescriptor | undefined>();
  for (const name of Object.keys(wrappers) as Wrapped[]) {
    descriptors.set(name, Object.getOwnPropertyDescriptor(client, name));
    try {
      Object.defineProperty(client, name, { value: wrappers[name], writable: true, configurable: true, enumerable: true });
    } catch {
      // A frozen client: that method stays unwatched.
      descriptors.delete(name);
    }
  }

  return {
    reads,
    appOverrides: () => appOverrides,
    own,
    restore() {
      for (const [name, descriptor] of descriptors) {
        if (client[name] !== wrappers[name]) continue;
        if (descriptor) Object.defineProperty(client, name, descriptor);
        else delete (client as Partial<FlagsClient>)[name];
      }
      descriptors.clear();
    },
  };
}

/** The overrides the client serves now: every key of `getAll()` whose reason is `OVERRIDE`. */
function overridesServed(client: FlagsClient): Record<string, JsonValue> {
  const served: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(client.getAll())) {
    // An override's read has no snapshot version, so reading it here reports no event.
    if (client.getDetails(key).reason === 'OVERRIDE') served[key] = value;
  }
  return served;
}
