import { hasInjectionContext, inject, type App, type InjectionKey } from 'vue';
import { ConfigError, createClient, type ClientOptions, type ClientStatus, type FlagDefaults, type FlagsClient } from '../src/index';
import type { RegisteredDefaults } from './types';

/** What {@link createFlagsPlugin} takes: `options` of a client it creates and owns, or the app's own `client`. */
export type FlagsPluginOptions =
  | ClientOptions<RegisteredDefaults & FlagDefaults>
  | {
      /** A client you created; you close it. */
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      client: FlagsClient<any, any>;
    };

/** The client the app provides: the client itself, so its identity is stable. */
const flagsKey: InjectionKey<FlagsClient> = Symbol('flagplane');

/** On the server: a client's status before the plugin closed it, the status the browser starts with. */
export const serverStatus = new WeakMap<FlagsClient, ClientStatus>();

function open(options: ClientOptions): FlagsClient {
  if (typeof window !== 'undefined') return createClient(options);
  // A server render is a throwaway reader and a server app is never unmounted: no events, no
  // persisted snapshot of one visitor, and closed at once (reads keep serving the bootstrap).
  const client = createClient({ ...options, events: false, persist: false, cache: undefined });
  serverStatus.set(client, client.getStatus());
  void client.close();
  return client;
}

/**
 * The plugin for `app.use(...)`. With client options, it creates the client when installed (so
 * a server render and hydration already serve the `bootstrap`) and closes it on
 * `app.unmount()`; with `{ client }`, it provides your client and leaves it open.
 */
export function createFlagsPlugin(options: FlagsPluginOptions): { install(app: App): void } {
  return {
    install(app) {
      if ('client' in options) return void app.provide(flagsKey, options.client);
      const client = open(options);
      app.provide(flagsKey, client);
      app.onUnmount(() => void client.close());
    },
  };
}

/** The app's client; `name` names the caller in the one error the composables throw. */
export function useClient(name: string): FlagsClient {
  const client = hasInjectionContext() ? inject(flagsKey, null) : null;
  if (!client) throw new ConfigError(`${name} needs the flags plugin: call it in setup() of an app that ran app.use(createFlagsPlugin(...))`);
  return client;
}
