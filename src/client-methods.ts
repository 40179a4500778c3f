import type { FlagsClient } from './client-types';
import type { Identity } from './context/identity';
import type { EventSender } from './events/event-sender';
import type { MachineShell } from './machine/machine-shell';
import type { ClientReads } from './reads/client-reads';

/** The client's methods over its parts: what `createClient` returns. */
export function clientMethods(
  shell: MachineShell,
  reads: ClientReads,
  identity: Identity,
  events: EventSender | null,
  subscribe: FlagsClient['subscribe'],
): FlagsClient {
  const { dispatch } = shell;
  return {
    ready: shell.ready,
    get: reads.own.get,
    getDetails: reads.own.getDetails,
    getAll: reads.own.getAll,
    getStatus: () => shell.state().status,
    getContext: identity.context,
    setContext: identity.setContext,
    setOverrides: (values) => void (shell.closed() || reads.setOverrides(values)),
    identify: identity.identify,
    async flush() {
      await events?.flush();
    },
    subscribe,
    refresh() {
      dispatch({ type: 'refresh' });
      // Offline, no request is made: nothing to wait for.
      return shell.offline() ? Promise.resolve() : shell.fetched();
    },
    async close() {
      dispatch({ type: 'close' });
      await events?.close();
    },
  };
}
