import { afterEach, beforeEach } from 'vitest';
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../reference-server/index';
import type { FlagsClient } from '../../src/client-types';

/** Keys and ids of reference-server/demo.json. */
export const DEMO = {
  adminToken: 'dev-admin-token',
  prodServerKey: 'svc_sdk_server_demo_prod_0001',
  prodClientKey: 'svc_sdk_client_demo_prod_0001',
  stagingServerKey: 'svc_sdk_server_demo_stg_0001',
  stagingClientKey: 'svc_sdk_client_demo_stg_0001',
} as const;

/**
 * Starts reference servers for one test file; after each test `beforeClose` runs (to close
 * the test's sockets first), then every server is released, even when the test failed.
 */
export function useServerPool(beforeClose: () => void = () => undefined) {
  const servers: ReferenceServer[] = [];
  afterEach(async () => {
    beforeClose();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (options: ReferenceServerOptions = {}): Promise<ReferenceServer> => {
    const server = await startReferenceServer(options);
    servers.push(server);
    return server;
  };
}

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
