import { getContext, setContext } from 'svelte';
import { ConfigError, type FlagsClient } from '../src/index';
import type { RegisteredClient } from './types';

// Symbol.for: two copies of the bindings in one app (a dev server's pre-bundled copy beside
// the app's own) still share the client.
const key = Symbol.for('flagplane/svelte');

/**
 * Makes `client` the flags client of this component and its descendants. Call it while the
 * component initialises (its `<script>`), as Svelte's `setContext` requires. You own the
 * client: create it, and close it when the app is done with it.
 */
export function setFlagsClient(client: RegisteredClient): RegisteredClient {
  return setContext(key, client);
}

/** The client a parent set; `caller` names the store in the error. */
export function clientFor(caller: string): FlagsClient {
  const client = getContext<FlagsClient | undefined>(key);
  if (!client) throw new ConfigError(`${caller}: no flags client in this component's context; call setFlagsClient(client) in a parent component`);
  return client;
}

/**
 * The flags client a parent set with `setFlagsClient`, for `setContext`, `identify`,
 * `setOverrides`, `refresh`. Call it while the component initialises. Throws a `ConfigError`
 * (code `config`) when no parent set one.
 */
export function getFlagsClient(): RegisteredClient {
  return clientFor('getFlagsClient()') as RegisteredClient;
}
