/** One flag: what it is and serves, and every change the console can make to it. */
import { memo, useCallback, useState } from 'react';
import type { Flag, JsonValue, WeightedVariation } from '../../src/index';
import type { AdminApi, AdminError, FlagChange } from './api';
import { describeRule, describeServe, describeVariation, flagType } from './flag-format';
import { MetadataLine } from './flag-metadata';
import { VariationList, VariationsEditor } from './flag-variations';
import { JsonEditor } from './json-editor';
import { RuleForm } from './rule-form';
import { FallthroughControl, OffVariationSelect } from './serve-controls';
import { Badge, ErrorNote } from './ui';
import { toAdminError, useAction } from './use-action';

export interface FlagCardProps {
  api: AdminApi;
  environmentId: string;
  flagKey: string;
  /** As the server holds it: checked only at the envelope when published as a snapshot. */
  flag: Flag;
  /** Reports a published change (the pane shows the last one) and refreshes the panes. */
  onPublished(change: FlagChange, what: string): void;
}

type Editing = 'none' | 'rules' | 'new-rule' | 'variations' | 'metadata' | 'flag';

/** The footer's buttons, each opening (or closing) one editor. */
const EDITORS: ReadonlyArray<{ mode: Exclude<Editing, 'none'>; label: string; testId: string }> = [
  { mode: 'new-rule', label: 'Add rule', testId: 'add-rule' },
  { mode: 'rules', label: 'Edit rules', testId: 'edit-rules' },
  { mode: 'variations', label: 'Edit variations', testId: 'edit-variations' },
  { mode: 'metadata', label: 'Edit metadata', testId: 'edit-metadata' },
  { mode: 'flag', label: 'Edit JSON', testId: 'edit-flag' },
];

/**
 * Memoised: a flag read again with the same JSON keeps its object (environment-merge.ts), so
 * after a publish only the changed flag's card renders, not the 10,000 others.
 */
export const FlagCard = memo(function FlagCard({ api, environmentId, flagKey, flag, onPublished }: FlagCardProps) {
  const variations: JsonValue[] = Array.isArray(flag.variations) ? flag.variations : [];
  const [editing, setEditing] = useState<Editing>('none');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const noop = useCallback(() => undefined, []);
  const toggle = useAction(noop);
  const off = useAction(noop);
  const fallthrough = useAction(noop);
  const remove = useAction(noop);

  const patch = async (members: Partial<Record<keyof Flag, unknown>>, what: string) => {
    onPublished(await api.patchFlag(environmentId, flagKey, members), what);
  };
  /** For the editors: the error to show next to the field, or null once published. */
  const publishing = async (send: () => Promise<FlagChange>, what: string): Promise<AdminError | null> => {
    try {
      onPublished(await send(), what);
      setEditing('none');
      return null;
    } catch (error) {
      return toAdminError(error);
    }
  };

  const jsonEditor = (label: string, initial: unknown, testId: string, send: (value: unknown) => Promise<FlagChange>, what: string) => (
    <JsonEditor label={label} initial={initial} testId={`${testId}-${flagKey}`} onSave={(value) => publishing(() => send(value), what)} onCancel={() => setEditing('none')} />
  );

  const rules = Array.isArray(flag.rules) ? flag.rules : [];
  return (
    <article className={`flag ${flag.on ? 'flag-on' : 'flag-off'}`} data-testid={`flag-${flagKey}`}>
      <header className="flag-head">
        <h3>{flagKey}</h3>
        <Badge testId={`flag-type-${flagKey}`}>{flagType(flag.variations)}</Badge>
        <Badge tone={flag.clientSide ? 'plain' : 'warn'} testId={`flag-visibility-${flagKey}`}>
          {flag.clientSide ? 'client-side' : 'server only'}
        </Badge>
        <span className="spacer" />
        <button
          type="button"
          role="switch"
          aria-checked={flag.on === true}
          className={`switch ${flag.on ? 'switch-on' : ''}`}
          data-testid={`toggle-${flagKey}`}
          disabled={toggle.pending}
          onClick={() => void toggle.run(() => patch({ on: !flag.on }, flag.on ? 'turned off' : 'turned on'))}
        >
          <span data-testid={`flag-state-${flagKey}`}>{flag.on ? 'ON' : 'OFF'}</span>
        </button>
      </header>
      <ErrorNote error={toggle.error} testId={`toggle-error-${flagKey}`} />

      <p className="serves" data-testid={`flag-serves-${flagKey}`}>
        {flag.on
          ? `on: ${rules.length ? `${rules.length} rule${rules.length > 1 ? 's' : ''}, then ` : ''}${describeServe(flag.fallthrough, variations)}`
          : `off: serves ${describeVariation(flag.offVariation, variations)} to everyone`}
      </p>

      <VariationList flagKey={flagKey} flag={flag} variations={variations} />
      <MetadataLine flagKey={flagKey} metadata={flag.metadata} />

      <div className="controls">
        <OffVariationSelect
          flagKey={flagKey}
          variations={variations}
          value={flag.offVariation}
          disabled={off.pending}
          onChange={(index) => void off.run(() => patch({ offVariation: index }, `off variation ${index}`))}
        />
        <FallthroughControl
          flagKey={flagKey}
          variations={variations}
          fallthrough={flag.fallthrough}
          disabled={fallthrough.pending}
          error={fallthrough.error}
          onVariation={(index) => void fallthrough.run(() => patch({ fallthrough: { variation: index } }, `fallthrough variation ${index}`))}
          onRollout={(rollout: WeightedVariation[]) =>
            publishing(() => api.patchFlag(environmentId, flagKey, { fallthrough: { rollout } }), 'rollout weights')
          }
        />
      </div>
      <ErrorNote error={off.error} testId={`off-variation-error-${flagKey}`} />

      <div className="rules">
        <span className="label">rules</span>
        {rules.length ? (
          <ol data-testid={`rules-${flagKey}`}>
            {rules.map((rule, index) => (
              <li key={index}>{describeRule(rule, variations)}</li>
            ))}
          </ol>
        ) : (
          <p className="muted" data-testid={`rules-${flagKey}`}>
            none: everyone gets the fallthrough
          </p>
        )}
      </div>

      {editing === 'variations' ? (
        <VariationsEditor
          flagKey={flagKey}
          flag={flag}
          onSave={(value) => publishing(() => api.putFlag(environmentId, flagKey, value), 'variations')}
          onCancel={() => setEditing('none')}
        />
      ) : null}
      {editing === 'metadata'
        ? jsonEditor('metadata (JSON object of strings, numbers and booleans)', flag.metadata ?? {}, 'metadata-editor', (metadata) => api.patchFlag(environmentId, flagKey, { metadata }), 'metadata')
        : null}
      {editing === 'new-rule' ? (
        <RuleForm
          flagKey={flagKey}
          variations={variations}
          ruleCount={rules.length}
          onAdd={(rule) => publishing(() => api.patchFlag(environmentId, flagKey, { rules: [...rules, rule] }), `rule ${rule.id} added`)}
          onCancel={() => setEditing('none')}
        />
      ) : null}
      {editing === 'rules' ? jsonEditor('rules (JSON array)', flag.rules, 'rules-editor', (value) => api.patchFlag(environmentId, flagKey, { rules: value }), 'rules') : null}
      {editing === 'flag' ? jsonEditor('the whole flag (JSON)', flag, 'flag-editor', (value) => api.putFlag(environmentId, flagKey, value), 'replaced') : null}

      <footer className="row">
        {EDITORS.map(({ mode, label, testId }) => (
          <button key={mode} type="button" data-testid={`${testId}-${flagKey}`} onClick={() => setEditing(editing === mode ? 'none' : mode)}>
            {label}
          </button>
        ))}
        <span className="spacer" />
        {confirmDelete ? (
          <>
            <button
              type="button"
              className="danger"
              data-testid={`confirm-delete-${flagKey}`}
              disabled={remove.pending}
              onClick={() => void remove.run(async () => onPublished(await api.deleteFlag(environmentId, flagKey), 'deleted'))}
            >
              Delete {flagKey}
            </button>
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" data-testid={`delete-${flagKey}`} onClick={() => setConfirmDelete(true)}>
            Delete…
          </button>
        )}
      </footer>
      <ErrorNote error={remove.error} testId={`delete-error-${flagKey}`} />
    </article>
  );
});
