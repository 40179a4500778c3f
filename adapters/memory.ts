/**
 * The in-memory storage adapter, as its own subpath (`flagplane/adapters/memory`). The
 * same function the core exports: synchronous, contents die with the process.
 */
export { createMemoryStorage } from '../src/storage/memory-storage';
