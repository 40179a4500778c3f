/**
 * The flags of one environment, searchable, in a list that renders only the cards on screen;
 * a "new flag" form, and the last change published.
 */
import { useCallback, useMemo, useState } from 'react';
import type { Flag } from '../../src/index';
import type { AdminApi, EnvironmentInfo, FlagChange } from './api';
import { FlagCard } from './flag-card';
import { flagTemplate } from './flag-format';
import { countLine, searchFlags } from './flag-search';
import { JsonEditor } from './json-editor';
import { Pane } from './ui';
import { toAdminError } from './use-action';
import { WindowedList } from './windowed-list';

export interface FlagsPaneProps {
  api: AdminApi;
  environment: EnvironmentInfo;
  /** The search, kept by the app (and in the fragment) so it outlives this pane. */
  search: string;
  onSearch(query: string): void;
  /** A change this pane published: the app shows it at once and refreshes what the feed would. */
  onChanged(change: FlagChange): void;
}

/** A card's height before it is measured: one with five rules and a rollout. */
const CARD_HEIGHT = 300;

const flagKeyOf = ([key]: [string, Flag]) => key;

export function FlagsPane({ api, environment, search, onSearch, onChanged }: FlagsPaneProps) {
  const [last, setLast] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const onPublished = useCallback(
    (change: FlagChange, what: string) => {
      setLast(`${change.key}: ${what} → version ${change.version}`);
      onChanged(change);
    },
    [onChanged],
  );
  const all = environment.snapshot.flags ?? {};
  const flags = useMemo(() => searchFlags(all, search), [all, search]);
  const total = useMemo(() => Object.keys(all).length, [all]);
  const renderFlag = useCallback(
    ([key, flag]: [string, Flag]) => <FlagCard api={api} environmentId={environment.id} flagKey={key} flag={flag} onPublished={onPublished} />,
    [api, environment.id, onPublished],
  );

  return (
    <Pane
      title={`Flags · ${environment.id}`}
      testId="flags-pane"
      actions={
        <button type="button" data-testid="new-flag" onClick={() => setCreating(!creating)}>
          New flag
        </button>
      }
    >
      {last ? (
        <p className="note" data-testid="last-change">
          Published {last}
        </p>
      ) : null}
      {creating ? (
        <NewFlag
          api={api}
          environmentId={environment.id}
          onDone={(change) => {
            setCreating(false);
            onPublished(change, 'created');
          }}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      <div className="search row">
        <input type="search" className="grow" placeholder="Search flags by key or metadata" aria-label="Search flags" data-testid="flag-search" value={search} onChange={(event) => onSearch(event.target.value)} />
        <span className="muted" data-testid="flag-count" aria-live="polite">
          {countLine(flags.length, total)}
        </span>
      </div>
      {total === 0 ? <p className="muted">No flags in this environment yet.</p> : null}
      {total > 0 && flags.length === 0 ? <p className="muted">No flag matches “{search}”.</p> : null}
      <WindowedList items={flags} itemKey={flagKeyOf} renderItem={renderFlag} estimatedHeight={CARD_HEIGHT} label={`Flags of ${environment.id}`} testId="flag-list" resetKey={search} />
    </Pane>
  );
}

const PLACEHOLDER_KEY = 'new-flag';

/** The template's salt, left as it was, becomes the key: two new flags do not share buckets. */
function withSalt(flag: unknown, key: string): unknown {
  const untouched = typeof flag === 'object' && flag !== null && (flag as { salt?: unknown }).salt === PLACEHOLDER_KEY;
  return untouched ? { ...flag, salt: key } : flag;
}

/** A key and a template flag in the JSON editor; PUT creates it. */
function NewFlag({ api, environmentId, onDone, onCancel }: { api: AdminApi; environmentId: string; onDone(change: FlagChange): void; onCancel(): void }) {
  const [key, setKey] = useState(PLACEHOLDER_KEY);
  return (
    <div className="new-flag" data-testid="new-flag-form">
      <label className="control">
        <span className="label">key</span>
        <input data-testid="new-flag-key" value={key} onChange={(event) => setKey(event.target.value)} />
      </label>
      <JsonEditor
        label="flag (JSON)"
        initial={flagTemplate(PLACEHOLDER_KEY)}
        testId="new-flag-editor"
        saveLabel="Create"
        onSave={async (flag) => {
          try {
            onDone(await api.putFlag(environmentId, key, withSalt(flag, key)));
            return null;
          } catch (error) {
            return toAdminError(error);
          }
        }}
        onCancel={onCancel}
      />
    </div>
  );
}
