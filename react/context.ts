'use client';
import { createContext, useContext } from 'react';
import type { ClientStatus, FlagsClient } from '../src/index';

/** The client of the nearest `<FlagsProvider>`; the client itself, so its identity is stable. */
export const FlagsContext = createContext<FlagsClient | null>(null);

/** On the server: a client's status before the provider closed it (provider.tsx `open`). */
export const serverStatus = new WeakMap<FlagsClient, ClientStatus>();

/** The provider's client; `hook` names the caller in the one error the bindings throw. */
export function useClient(hook: string): FlagsClient {
  const client = useContext(FlagsContext);
  if (!client) throw new Error(`${hook} must be used inside <FlagsProvider>`);
  return client;
}
