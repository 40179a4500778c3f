'use client';
import { useEffect, useReducer, useRef, type ReactNode } from 'react';
import { createClient, type ClientOptions, type FlagDefaults, type FlagsClient } from '../src/index';
import { FlagsContext, serverStatus } from './context';
import type { RegisteredDefaults } from './types';

/** Props of {@link FlagsProvider}: an app-owned `client`, or `options` to create and own one. */
export type FlagsProviderProps = { children?: ReactNode } & (
  | {
      /** A client you created; you close it. */
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      client: FlagsClient<any, any>;
      options?: undefined;
    }
  | {
      /**
       * Options of a client the provider creates on first render and closes on unmount.
       * Read once: later changes are ignored (give the provider a new `key` to start over).
       */
      options: ClientOptions<RegisteredDefaults & FlagDefaults>;
      client?: undefined;
    }
);

// A client created in a render that has not committed yet, by its options object. A render
// React throws away and retries (StrictMode's double render in React 18, an interrupted
// mount) passes the same props object, so the retry adopts the client instead of leaking
// a second one; the effect that commits claims it.
const unclaimed = new WeakMap<object, FlagsClient>();

function open(options: ClientOptions): FlagsClient {
  const server = typeof window === 'undefined';
  // A server render is a throwaway reader: the browser reports its own evaluations, and a
  // server has no business persisting the snapshot of one visitor.
  const client = createClient(server ? { ...options, events: false, persist: false, cache: undefined } : options);
  if (server) {
    // No effect ever runs on the server, so nothing could close this client later: close
    // it now (reads keep serving the bootstrap) and keep the status the browser will have
    // while hydrating, so a status panel hydrates without a mismatch.
    serverStatus.set(client, client.getStatus());
    void client.close();
  } else {
    unclaimed.set(options, client);
  }
  return client;
}

/**
 * Makes a flags client available to the hooks below it. With `options`, creates the
 * client on first render (so server rendering and the first paint already serve the
 * bootstrap) and closes it on unmount. StrictMode's mount → unmount → mount closes the
 * first client; the remount finds it closed and creates a fresh one (docs/react.md).
 */
export function FlagsProvider({ client, options, children }: FlagsProviderProps): ReactNode {
  const owned = useRef<FlagsClient | null>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  if (!client && !owned.current) owned.current = unclaimed.get(options!) ?? open(options!);
  useEffect(() => {
    if (client) return;
    let current = owned.current!;
    // Not ours when another provider with the same options object claimed it first, or
    // when a previous cleanup of this provider (StrictMode, <Activity>) closed it.
    if (unclaimed.get(options!) !== current) {
      owned.current = current = open(options!);
      rerender();
    }
    unclaimed.delete(options!);
    return () => void current.close();
    // Runs again only when the app switches between `client` and `options`: the client the
    // provider then creates is claimed here and closed with it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client]);
  return <FlagsContext.Provider value={client ?? owned.current}>{children}</FlagsContext.Provider>;
}
