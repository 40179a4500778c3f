import { createClient } from '../../src/client';
import type { FlagplaneError } from '../../src/shared/errors';
import type { HttpRequest } from '../../src/http/http-types';
import type { ClientOptions, FlagDefaults } from '../../src/options';
import { defaultScheduler } from '../../src/shared/scheduler';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { createFakeTransport, snapshotServer, type Reply } from './fake-transport';

export const CLIENT_KEY = 'svc_sdk_client_test_key_0001';
export const BASE_URL = 'https://flags.test';

/**
 * A client on a fake transport, with jitter fixed at 0 and the platform timers (so that
 * `vi.useFakeTimers()` reaches them). Errors reported through `onError` are collected.
 * Events are off and the anonymous id is fixed unless a test turns them on, so that the
 * fetch machine's requests and timers are the only ones, and tabs are not synced.
 */
export function harness<D extends FlagDefaults = FlagDefaults>(
  handler: (request: HttpRequest) => Reply | Promise<Reply>,
  options: Partial<ClientOptions<D>> = {},
) {
  const fake = createFakeTransport(handler);
  const errors: FlagplaneError[] = [];
  const client = createClient({
    sdkKey: CLIENT_KEY,
    baseUrl: BASE_URL,
    transport: fake.transport,
    scheduler: { ...defaultScheduler, random: () => 0 },
    onError: (error) => errors.push(error),
    events: false,
    anonymousId: 'anonymous-test-id',
    syncTabs: false,
    ...options,
  } as ClientOptions<D>);
  return { client, errors, ...fake };
}

/** The harness on a snapshot server (fake-transport.ts) holding `snapshot`; `server.publish()` replaces it. */
export function servedHarness<D extends FlagDefaults = FlagDefaults>(snapshot: FlagSnapshot, options: Partial<ClientOptions<D>> = {}) {
  const server = snapshotServer(snapshot);
  return { ...harness<D>(server.handler, options), server };
}
