import { useCallback, useEffect, useRef, useState } from 'react';
import { AdminError, isAbort, type AdminApi, type EnvironmentInfo, type IdentifyRow, type KeyInfo, type StoredEvent } from './api';

/** How often the live panes ask the server (the admin API has no push of its own). */
export const POLL_MS = 1000;
/** Events and identify rows kept per pane. */
export const EVENT_LIMIT = 30;

export interface AdminState {
  environments: EnvironmentInfo[] | null;
  keys: KeyInfo[] | null;
  diagnostics: StoredEvent[];
  analytics: StoredEvent[];
  /** The identify queue of the environment being looked at. */
  identify: IdentifyRow[];
  /** The last poll's failure, cleared by the next success. */
  error: AdminError | null;
}

const EMPTY: AdminState = { environments: null, keys: null, diagnostics: [], analytics: [], identify: [], error: null };

/** `next`, or `previous` when it holds the same JSON: an unchanged poll re-renders nothing. */
function keep<T>(previous: T, next: T): T {
  return JSON.stringify(previous) === JSON.stringify(next) ? previous : next;
}

async function fetchState(api: AdminApi, environmentId: string | null, signal: AbortSignal): Promise<Omit<AdminState, 'error'>> {
  // First alone: a refused token then costs one request (and one logged 401), not four.
  const environments = await api.environments(signal);
  const [keys, diagnostics, analytics] = await Promise.all([
    api.keys(signal),
    api.diagnostics(EVENT_LIMIT, signal),
    api.analytics(EVENT_LIMIT, signal),
  ]);
  const shown = environments.find((environment) => environment.id === environmentId) ?? environments[0];
  const identify = shown ? await api.identifyQueue(shown.id, EVENT_LIMIT, signal) : [];
  return { environments, keys, diagnostics, analytics, identify };
}

/**
 * Polls the admin API every {@link POLL_MS} while the page is visible, one poll at a time.
 * `refresh()` polls at once (after a change). A 401 stops polling and goes to `onRefused`:
 * asking again with the same token would only log one failed request a second.
 */
export function useAdminState(api: AdminApi | null, environmentId: string | null, onRefused: (error: AdminError) => void) {
  const [state, setState] = useState<AdminState>(EMPTY);
  const shown = useRef(environmentId);
  shown.current = environmentId;
  const refreshRef = useRef<() => void>(() => undefined);
  const refused = useRef(onRefused);
  refused.current = onRefused;

  useEffect(() => {
    setState(EMPTY);
    if (!api) return;
    let stopped = false;
    let running = false;
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();

    const poll = async () => {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      clearTimeout(timer);
      if (document.visibilityState === 'hidden') {
        timer = setTimeout(poll, POLL_MS);
        return;
      }
      running = true;
      try {
        const next = await fetchState(api, shown.current, controller.signal);
        if (stopped) return;
        setState((previous) => ({
          environments: keep(previous.environments, next.environments),
          keys: keep(previous.keys, next.keys),
          diagnostics: keep(previous.diagnostics, next.diagnostics),
          analytics: keep(previous.analytics, next.analytics),
          identify: keep(previous.identify, next.identify),
          error: null,
        }));
      } catch (error) {
        if (stopped || isAbort(error)) return;
        const failure = error instanceof AdminError ? error : new AdminError(0, 'console', (error as Error)?.message ?? String(error));
        if (failure.status === 401) {
          stopped = true;
          refused.current(failure);
          return;
        }
        setState((previous) => (previous.error?.message === failure.message ? previous : { ...previous, error: failure }));
      } finally {
        running = false;
        if (!stopped) {
          if (again) {
            again = false;
            void poll();
          } else {
            timer = setTimeout(poll, POLL_MS);
          }
        }
      }
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') void poll();
    };
    refreshRef.current = () => void poll();
    document.addEventListener('visibilitychange', onVisible);
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller.abort();
      document.removeEventListener('visibilitychange', onVisible);
      refreshRef.current = () => undefined;
    };
  }, [api]);

  // Looking at another environment: its identify queue now, not in a second.
  useEffect(() => refreshRef.current(), [environmentId]);

  const refresh = useCallback(() => refreshRef.current(), []);
  return { state, refresh };
}
