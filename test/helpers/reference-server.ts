import { afterEach, beforeEach } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import type { FlagsClient } from '../../src/client-types';

/**
 * A reference server on port 0 for each test of a file, and the clients a test registers;
 * after each test every client is closed, then the server (the current one, if a test
 * restarted it).
 */
export function useReferenceServer() {
  const context = { server: undefined as unknown as ReferenceServer, clients: [] as FlagsClient[] };
  beforeEach(async () => {
    context.server = await startReferenceServer({ port: 0 });
  });
  afterEach(async () => {
    await Promise.all(context.clients.splice(0).map((client) => client.close()));
    await context.server.close();
  });
  return context;
}
