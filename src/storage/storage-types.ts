/**
 * The durable storage adapter: string values, each method synchronous or async.
 * One shape serves localStorage, IndexedDB and React Native's AsyncStorage.
 */
export interface StorageAdapter {
  get(key: string): string | null | Promise<string | null>;
  set(key: string, value: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}
