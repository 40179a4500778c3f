import type { ClientOptions, FlagsClient } from '../../src/index';

type Core = typeof import('../../src/index');

/** Every client created through the core (by a provider or by a test), in this test file. */
export const created: FlagsClient[] = [];
const live = new WeakMap<object, { count: number }>();

/** How many listeners of `client` are subscribed now (counted from its creation). */
export const listeners = (client: FlagsClient): number => live.get(client)!.count;

/**
 * The core with a createClient that records each client in `created` and counts its live
 * listeners. A test file hands it to vi.mock, so that the clients a provider creates are
 * seen too:
 *
 *   vi.mock('../../src/index', async (original) => (await import('./created-clients')).recordingCore(await original()));
 */
export function recordingCore(core: Core): Core {
  const createClient = (options: ClientOptions) => {
    const client = core.createClient(options);
    const counter = { count: 0 };
    live.set(client, counter);
    const subscribe = client.subscribe;
    client.subscribe = (listener) => {
      counter.count++;
      const off = subscribe(listener);
      let done = false;
      return () => {
        if (!done) counter.count--;
        done = true;
        off();
      };
    };
    created.push(client);
    return client;
  };
  return { ...core, createClient: createClient as Core['createClient'] };
}
