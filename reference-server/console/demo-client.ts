/** The demo pane's SDK client: the real one, streaming from this server like any browser app. */
import { useEffect, useRef, useState } from 'react';
import { webSocketTransport } from '../../adapters/websocket';
import { createClient, type EvaluationContext, type FlagplaneError, type FlagsClient } from '../../src/index';
import type { KeyInfo } from './api';

/** The non-revoked client keys of an environment. */
export function clientKeys(keys: readonly KeyInfo[] | null, environmentId: string | null): string[] {
  return (keys ?? []).filter((key) => key.environmentId === environmentId && key.kind === 'client' && !key.revoked).map((key) => key.key);
}

/** The key the demo uses: the one picked while it is usable, else the first usable one. */
export function demoKeyFor(keys: readonly KeyInfo[] | null, environmentId: string | null, picked: string | null): string | null {
  const usable = clientKeys(keys, environmentId);
  return picked && usable.includes(picked) ? picked : (usable[0] ?? null);
}

export interface ReportedError {
  at: number;
  code: string;
  message: string;
}

/**
 * A client for `sdkKey`, created when the key is known and closed when it changes or the pane
 * goes away (switching environment means a new key, so a new client). It starts from the
 * context of the moment; later edits go through `setContext` / `identify`.
 */
export function useDemoClient(sdkKey: string | null, context: EvaluationContext) {
  const [current, setCurrent] = useState<{ sdkKey: string; client: FlagsClient } | null>(null);
  const [errors, setErrors] = useState<ReportedError[]>([]);
  const startContext = useRef(context);
  startContext.current = context;

  useEffect(() => {
    setErrors([]);
    if (!sdkKey) {
      setCurrent(null);
      return;
    }
    const created = createClient({
      sdkKey,
      baseUrl: location.origin,
      streamUrl: location.origin.replace(/^http/, 'ws'),
      streamTransport: webSocketTransport,
      context: startContext.current,
      // What the server holds now, not what an earlier run cached; one tab, one client.
      persist: false,
      syncTabs: false,
      // Events reach the live panes within a second or two.
      flushInterval: 1000,
      onError: (error: FlagplaneError) => setErrors((previous) => [{ at: Date.now(), code: error.code, message: error.message }, ...previous].slice(0, 5)),
    });
    setCurrent({ sdkKey, client: created });
    return () => {
      void created.close();
    };
  }, [sdkKey]);

  // Until the effect has run for a new key, the previous (closed) client is not shown.
  return { client: current?.sdkKey === sdkKey ? current.client : null, errors };
}
