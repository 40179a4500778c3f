/**
 * The console's reads of the admin API, each re-run when the change feed says its data changed.
 * A read asked for while the same read runs runs once more afterwards, never twice at once, so
 * the last answer on screen is never older than the last change heard.
 */
import type { AdminChange } from '../routes/admin-change-kinds';
import type { AdminApi, EnvironmentInfo, IdentifyRow, KeyInfo, StoredEvent } from './api';
import { mergeEnvironment, mergeEnvironments } from './environment-merge';

/** Events and identify rows kept per pane. */
export const EVENT_LIMIT = 30;

export interface AdminData {
  environments: EnvironmentInfo[] | null;
  keys: KeyInfo[] | null;
  diagnostics: StoredEvent[];
  analytics: StoredEvent[];
  /** The identify queue of the environment being looked at. */
  identify: IdentifyRow[];
}

export const NO_DATA: AdminData = { environments: null, keys: null, diagnostics: [], analytics: [], identify: [] };

/** `next`, or `previous` when it holds the same JSON: a read that found nothing new re-renders nothing. */
export function keep<T>(previous: T, next: T): T {
  return JSON.stringify(previous) === JSON.stringify(next) ? previous : next;
}

/** `environments` with one entry merged in (unchanged flags keep their objects), unless the one shown is newer (a late answer). */
export function withEnvironment(environments: EnvironmentInfo[] | null, next: EnvironmentInfo): EnvironmentInfo[] | null {
  if (!environments) return environments;
  const index = environments.findIndex((environment) => environment.id === next.id);
  if (index === -1) return [...environments, next];
  const shown = environments[index]!;
  const merged = shown.version > next.version ? shown : mergeEnvironment(shown, next);
  return merged === shown ? environments : environments.map((environment, i) => (i === index ? merged : environment));
}

/** Runs `work`; a call while it runs makes it run once more afterwards. */
function coalesced(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = work().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        void run();
      }
    });
    return running;
  };
  return run;
}

type Update = (change: (previous: AdminData) => AdminData) => void;

/** The reads, each writing what it read through `update`; failures reject (the caller reports them). */
export function createAdminReads(api: AdminApi, shownId: () => string | null, update: Update, signal: AbortSignal) {
  const shown = (environments: EnvironmentInfo[] | null) => environments?.find((e) => e.id === shownId()) ?? environments?.[0];
  const events = coalesced(async () => {
    const [diagnostics, analytics] = await Promise.all([api.diagnostics(EVENT_LIMIT, signal), api.analytics(EVENT_LIMIT, signal)]);
    update((previous) => ({ ...previous, diagnostics: keep(previous.diagnostics, diagnostics), analytics: keep(previous.analytics, analytics) }));
  });
  const identifyOf = async (environmentId: string) => {
    const identify = await api.identifyQueue(environmentId, EVENT_LIMIT, signal);
    update((previous) => (shown(previous.environments)?.id === environmentId ? { ...previous, identify: keep(previous.identify, identify) } : previous));
  };
  const keys = coalesced(async () => {
    const next = await api.keys(signal);
    update((previous) => ({ ...previous, keys: keep(previous.keys, next) }));
  });
  const perEnvironment = new Map<string, () => Promise<void>>();
  const environment = (environmentId: string) => {
    let read = perEnvironment.get(environmentId);
    if (!read) {
      read = coalesced(async () => {
        const next = await api.environment(environmentId, signal);
        update((previous) => ({ ...previous, environments: withEnvironment(previous.environments, next) }));
      });
      perEnvironment.set(environmentId, read);
    }
    return read();
  };
  const all = coalesced(async () => {
    // First alone: a refused token then costs one request, not four.
    const environments = await api.environments(signal);
    update((previous) => ({ ...previous, environments: mergeEnvironments(previous.environments, environments) }));
    const target = shown(environments);
    await Promise.all([keys(), events(), target ? identifyOf(target.id) : Promise.resolve()]);
  });
  return { all, environment, keys, events, identifyOf };
}

export type AdminReads = ReturnType<typeof createAdminReads>;

/** The reads a change calls for; stream counts come with the change itself. */
export function followChange(change: AdminChange, reads: AdminReads, shownId: string | null, setStreams: (id: string, streams: number) => void): Promise<void> | void {
  switch (change.kind) {
    case 'published':
      return reads.environment(change.environmentId);
    case 'key-added':
    case 'key-revoked':
      return reads.keys();
    case 'streams':
      return setStreams(change.environmentId, change.streams);
    case 'events':
      if (change.environmentId !== shownId) return;
      return Promise.all([reads.events(), change.identify > 0 ? reads.identifyOf(change.environmentId) : undefined]).then(() => undefined);
    default:
      // Traits and resyncs change nothing the console shows.
      return;
  }
}
