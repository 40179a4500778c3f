/** The flags of one environment, a "new flag" form, and the last change published. */
import { useCallback, useState } from 'react';
import type { AdminApi, EnvironmentInfo, FlagChange } from './api';
import { FlagCard } from './flag-card';
import { flagTemplate } from './flag-format';
import { JsonEditor } from './json-editor';
import { Pane } from './ui';
import { toAdminError } from './use-action';

export function FlagsPane({ api, environment, onChanged }: { api: AdminApi; environment: EnvironmentInfo; onChanged(): void }) {
  const [last, setLast] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const onPublished = useCallback(
    (change: FlagChange, what: string) => {
      setLast(`${change.key}: ${what} → version ${change.version}`);
      onChanged();
    },
    [onChanged],
  );
  const flags = Object.entries(environment.snapshot.flags ?? {}).sort(([a], [b]) => a.localeCompare(b));

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
      {flags.length === 0 ? <p className="muted">No flags in this environment yet.</p> : null}
      <div className="flag-list" data-testid="flag-list">
        {flags.map(([key, flag]) => (
          <FlagCard key={`${environment.id}/${key}`} api={api} environmentId={environment.id} flagKey={key} flag={flag} onPublished={onPublished} />
        ))}
      </div>
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
