/** The console: a token, then the environment's flags and keys beside its live state and the demo. */
import { useCallback, useMemo, useState } from 'react';
import { createAdminApi, type AdminError, type FlagChange } from './api';
import { DemoPane } from './demo-pane';
import { EnvironmentsPane } from './environments-pane';
import { EventsPane } from './events-pane';
import { FlagsPane } from './flags-pane';
import { initialSearch, saveSearch } from './flag-search';
import { KeysPane } from './keys-pane';
import { demoKeyFor } from './demo-client';
import { initialToken, saveToken } from './token';
import { TokenPrompt } from './token-prompt';
import { ErrorNote } from './ui';
import { useAdminState } from './use-admin-state';
import { FeedBadge } from './feed-badge';

export function App() {
  const [token, setToken] = useState(initialToken);
  const [refused, setRefused] = useState<AdminError | null>(null);
  const api = useMemo(() => (token && !refused ? createAdminApi(token) : null), [token, refused]);
  const [selected, setSelected] = useState<string | null>(null);
  const [demoPicked, setDemoPicked] = useState<string | null>(null);
  const onRefused = useCallback((error: AdminError) => {
    // A reload must not try the refused token again.
    saveToken(null);
    setRefused(error);
  }, []);
  const { state, refresh, applyChange } = useAdminState(api, selected, onRefused);
  const [search, setSearch] = useState(initialSearch);
  const changeSearch = useCallback((query: string) => {
    saveSearch(query);
    setSearch(query);
  }, []);
  const onFlagChanged = useCallback(
    (change: FlagChange) => {
      applyChange(change);
      refresh();
    },
    [applyChange, refresh],
  );

  const environments = state.environments ?? [];
  const environment = environments.find((candidate) => candidate.id === selected) ?? environments[0] ?? null;
  const changeToken = useCallback((next: string | null) => {
    saveToken(next);
    setToken(next);
    setRefused(null);
  }, []);

  return (
    <div className="console">
      <header className="top">
        <h1>flagplane console</h1>
        <span className="muted">{location.host} · for local development</span>
        <span className="spacer" />
        {api ? (
          <>
            <FeedBadge connection={state.connection} failing={state.error !== null} />
            <button type="button" data-testid="forget-token" onClick={() => changeToken(null)}>
              Forget token
            </button>
          </>
        ) : null}
      </header>
      <ErrorNote error={state.error} testId="read-error" />
      <main className="columns">
        <div className="column wide">
          {!api ? <TokenPrompt refused={refused} onToken={changeToken} /> : null}
          {api && state.environments === null && !state.error ? <p className="muted">Loading…</p> : null}
          {api && environment ? (
            <>
              <FlagsPane key={environment.id} api={api} environment={environment} search={search} onSearch={changeSearch} onChanged={onFlagChanged} />
              <KeysPane
                api={api}
                environmentId={environment.id}
                keys={state.keys ?? []}
                demoKey={demoKeyFor(state.keys, environment.id, demoPicked)}
                onChanged={refresh}
              />
            </>
          ) : null}
        </div>
        <div className="column">
          {api && environment ? <EnvironmentsPane environments={environments} selected={environment.id} onSelect={setSelected} /> : null}
          <DemoPane environmentId={environment?.id ?? null} keys={api ? state.keys : null} picked={demoPicked} onPick={setDemoPicked} search={search} />
          {api && environment ? (
            <EventsPane environmentId={environment.id} identify={state.identify} analytics={state.analytics} diagnostics={state.diagnostics} />
          ) : null}
        </div>
      </main>
    </div>
  );
}
