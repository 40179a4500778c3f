import { useCallback, useEffect, useRef, useState } from 'react';
import { AdminError, isAbort, type AdminApi, type FlagChange } from './api';
import { createAdminReads, followChange, NO_DATA, type AdminData, type AdminReads } from './admin-reads';
import { followChanges, type FeedConnection } from './change-feed';
import { withFlagChange } from './environment-merge';

export { EVENT_LIMIT } from './admin-reads';

export interface AdminState extends AdminData {
  /** The change feed: `live` while it delivers, `reconnecting` after it dropped. */
  connection: FeedConnection;
  /** The last read's failure, cleared by the next success. */
  error: AdminError | null;
}

const EMPTY: AdminState = { ...NO_DATA, connection: 'connecting', error: null };

/**
 * The admin state, read once when the change feed opens (and again each time it reopens), then
 * kept current by re-reading only what each change names. A 401 goes to `onRefused` and stops
 * everything: asking again with the same token would only be refused again.
 */
export function useAdminState(api: AdminApi | null, environmentId: string | null, onRefused: (error: AdminError) => void) {
  const [state, setState] = useState<AdminState>(EMPTY);
  const shown = useRef(environmentId);
  shown.current = environmentId;
  const first = useRef<string | null>(null);
  first.current = state.environments?.[0]?.id ?? null;
  /** This effect's reads and its failure report; null while there is no token. */
  const live = useRef<{ reads: AdminReads; report(error: unknown): void } | null>(null);
  const refused = useRef(onRefused);
  refused.current = onRefused;

  useEffect(() => {
    setState(EMPTY);
    if (!api) return;
    const controller = new AbortController();
    let stopFeed: () => void = () => undefined;
    const refuse = (error: AdminError) => {
      stopFeed();
      controller.abort();
      refused.current(error);
    };
    const report = (error: unknown) => {
      if (controller.signal.aborted || isAbort(error)) return;
      const failure = error instanceof AdminError ? error : new AdminError(0, 'console', (error as Error)?.message ?? String(error));
      if (failure.status === 401) return refuse(failure);
      setState((previous) => (previous.error?.message === failure.message ? previous : { ...previous, error: failure }));
    };
    const cleared = (change: (previous: AdminState) => AdminData) =>
      setState((previous) => ({ ...previous, ...change(previous), error: null }));
    const current = createAdminReads(api, () => shown.current, cleared, controller.signal);
    live.current = { reads: current, report };
    const setStreams = (id: string, streams: number) =>
      setState((previous) => ({ ...previous, environments: previous.environments?.map((e) => (e.id === id && e.streams !== streams ? { ...e, streams } : e)) ?? null }));
    stopFeed = followChanges({
      origin: api.origin,
      token: api.token,
      onReady: () => void current.all().catch(report),
      onChange: (change) => void Promise.resolve(followChange(change, current, shown.current ?? first.current, setStreams)).catch(report),
      onConnection: (connection) => setState((previous) => (previous.connection === connection ? previous : { ...previous, connection })),
      onRefused: refuse,
    });
    return () => {
      stopFeed();
      controller.abort();
      live.current = null;
    };
  }, [api]);

  // Looking at another environment: its identify queue now.
  useEffect(() => {
    const target = environmentId ?? first.current;
    if (live.current && target) void live.current.reads.identifyOf(target).catch(live.current.report);
  }, [environmentId]);

  /** After a change of this console: the feed brings it, unless the feed is down. */
  const refresh = useCallback(() => {
    if (state.connection !== 'live' && live.current) void live.current.reads.all().catch(live.current.report);
  }, [state.connection]);
  /** This console's own flag change, shown from the server's answer before the feed's read confirms it. */
  const applyChange = useCallback((change: FlagChange) => {
    setState((previous) => {
      const environments = withFlagChange(previous.environments, change);
      return environments === previous.environments ? previous : { ...previous, environments };
    });
  }, []);
  return { state, refresh, applyChange };
}
