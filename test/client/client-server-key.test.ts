// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import type { FlagsClient } from '../../src/client-types';
import { ConfigError } from '../../src/shared/errors';

const clients: FlagsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const options = (sdkKey: string, extra: Record<string, unknown> = {}) => ({
  sdkKey,
  baseUrl: 'https://flags.test',
  transport: () => new Promise<never>(() => {}),
  events: false,
  persist: false,
  syncTabs: false,
  ...extra,
});

describe('a server key in a page (a document exists)', () => {
  it('is a ConfigError that says what it would leak and what to do instead', () => {
    expect(typeof document).toBe('object');
    let error: unknown;
    try {
      createClient(options('svc_sdk_server_backend_0001'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/server-only flags to every visitor/);
    expect((error as Error).message).toMatch(/client key/);
    expect((error as Error).message).toMatch(/allowServerKeyInPage/);
    // The key itself never reaches the message.
    expect((error as Error).message).not.toMatch(/backend_0001/);
  });

  it('runs when the app opts in with allowServerKeyInPage (an Electron renderer)', () => {
    const client = createClient(options('svc_sdk_server_backend_0001', { allowServerKeyInPage: true }));
    clients.push(client);
    expect(client.getStatus().status).toBe('initializing');
  });

  it('a client key runs as before', () => {
    const client = createClient(options('svc_sdk_client_frontend_0001'));
    clients.push(client);
    expect(client.getStatus().status).toBe('initializing');
  });
});
