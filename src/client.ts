import { clientMethods } from './client-methods';
import type { ChangeEvent, ClientOf } from './client-types';
import { createIdentity } from './context/identity';
import { createEventSender } from './events/event-sender';
import { createHttpClient } from './http/http-client';
import { createMachineShell, type HandedEffect } from './machine/machine-shell';
import { openSnapshotSources } from './machine/snapshot-sources';
import { resolveOptions, type ClientOptions, type FlagDefaults } from './options';
import { watchActivity } from './platform/activity';
import { inPage } from './platform/in-page';
import { watchPageExit } from './platform/page-exit';
import { createClientReads } from './reads/client-reads';
import { viewSources } from './reads/view-sources';
import { createErrorChannel, guardOnError } from './shared/error-channel';
import { fingerprint } from './shared/fingerprint';
import { createSubscribable } from './shared/subscribable';
import { browserStorage } from './storage/default-storage';
import { createStreamLink } from './stream/stream-link';

/**
 * Creates a feature-flag client and starts fetching. Throws a `ConfigError` for invalid
 * options — the only throw in the SDK; everything after reports through `onError`.
 * `createClient<Flags>(…)` types the reads by a flags type (`flagplane types`, docs/typed-flags.md):
 * any other key, or a value of another type, is a compile error. Without one, the reads are
 * typed from `defaults`, and other keys from their fallback.
 */
export function createClient<F extends FlagDefaults = FlagDefaults, D extends FlagDefaults = F>(options: ClientOptions<D>): ClientOf<F, D> {
  const config = resolveOptions(options as ClientOptions);
  const toApp = guardOnError(options.onError);
  // Going away, the page ends every request and the socket: none of that is a failure. A page
  // the back-forward cache shows again catches up at once.
  const page = watchPageExit(
    () => stream.disconnect(),
    () => {
      dispatch({ type: 'refresh' });
      if (!shell.offline()) stream.connect();
    },
  );
  const http = createHttpClient(config, page.exits);
  // Tab sync and the localStorage cache are a page's: elsewhere they are off unless asked for.
  const syncTabs = options.syncTabs ?? inPage();
  const storage = options.cache ?? ((options.persist ?? inPage()) ? browserStorage() : undefined);
  const keyFingerprint = fingerprint(config.sdkKey);

  const shell = createMachineShell(config, http, {
    changed(previous) {
      const state = shell.state();
      const statusChanged = state.status !== previous.status;
      if (state.snapshot !== previous.snapshot) reads.reevaluate(statusChanged);
      else reads.notify(new Set(), statusChanged);
    },
    effect: run,
    settled(previous) {
      const { activity } = shell.state();
      if (activity === previous.activity || shell.closed()) return;
      // Reconnects wait for the network: no socket while offline.
      if (activity === 'offline') return stream.disconnect();
      stream.connect();
      identity.online();
      void events?.flush();
    },
  });
  const { dispatch } = shell;
  // Its own HTTP client: close() aborts polling but still sends the last flush; its own errors
  // go to onError only (buffered, they would feed themselves). Object.assign, not a spread
  // with members after it: V8 adds those one hidden class at a time (~1.7 µs).
  const events = options.events === false ? null : createEventSender(Object.assign({}, config, { http: createHttpClient(config, page.exits), report: toApp, offline: shell.offline }));
  const errors = createErrorChannel(toApp, events);
  const { report } = errors;
  const listeners = createSubscribable<ChangeEvent>((cause) => errors.threw('a subscribe listener', cause));
  const identity = createIdentity(config, { http, events, storage, report, reevaluate: () => reads.reevaluate(), closed: shell.closed, offline: shell.offline });
  const reads = createClientReads(options.defaults, events, { identity, machine: shell }, report, (changed) => listeners.emit({ changed, status: shell.state().status }));

  function run(effect: HandedEffect): void {
    switch (effect.type) {
      case 'report':
        return report(effect.error);
      case 'persist':
        return sources.keep(effect);
      case 'version_skew':
        return events?.push(effect);
      case 'stop':
        page.stop();
        sources.close();
        listeners.clear();
        // The link reports what a custom stream transport throws; a platform source is ours to guard.
        stream.disconnect();
        try {
          activity.stop();
        } catch (cause) {
          errors.threw('closing', cause);
        }
    }
  }

  identity.loadAnonymousId();
  // Tabs that share snapshots also take turns fetching what the stream announces (stream/tab-handover.ts).
  const sources = openSnapshotSources(options.bootstrap, options.storageKey, syncTabs, storage, keyFingerprint, dispatch, report);
  const stream = createStreamLink(Object.assign({}, config, { transport: options.streamTransport, lastKnownVersion: () => shell.state().status.version, dispatch, onError: report, fetched: syncTabs && shell.fetched }));
  const activity = watchActivity(options, (current) => dispatch({ type: 'activity', activity: current }));
  dispatch({ type: 'start', activity: activity.current() });

  const client = clientMethods(shell, reads, identity, events, listeners.subscribe);
  viewSources.set(client, { scope: reads.scope, identity, readsFor: reads.readsFor });
  return client as unknown as ClientOf<F, D>;
}
