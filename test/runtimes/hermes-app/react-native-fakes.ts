/**
 * What the example imports from React Native and its community modules, as small in-memory
 * stand-ins (the test's esbuild maps `react-native`, `@react-native-async-storage/async-storage`
 * and `@react-native-community/netinfo` here). The app commands in app.ts drive them.
 */
type Listener<T> = (value: T) => void;

function listeners<T>() {
  const set = new Set<Listener<T>>();
  return {
    add(listener: Listener<T>) {
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit: (value: T) => set.forEach((listener) => listener(value)),
  };
}

const appStateChanges = listeners<string>();
export const AppState = {
  currentState: 'active',
  addEventListener(_type: 'change', listener: Listener<string>) {
    return { remove: appStateChanges.add(listener) };
  },
  /** For the app commands: the app goes to the background or comes back. */
  set(state: string) {
    AppState.currentState = state;
    appStateChanges.emit(state);
  },
};

const netChanges = listeners<{ isConnected: boolean }>();
let connected = true;
export const NetInfo = {
  /** Like NetInfo, reports the current state to a new listener at once. */
  addEventListener(listener: Listener<{ isConnected: boolean }>) {
    const remove = netChanges.add(listener);
    listener({ isConnected: connected });
    return remove;
  },
  set(isConnected: boolean) {
    connected = isConnected;
    netChanges.emit({ isConnected });
  },
};

const stored = new Map<string, string>();
export const AsyncStorage = {
  getItem: async (key: string) => stored.get(key) ?? null,
  setItem: async (key: string, value: string) => void stored.set(key, value),
  removeItem: async (key: string) => void stored.delete(key),
  /** For the app commands: what the app has persisted. */
  keys: () => [...stored.keys()],
};
