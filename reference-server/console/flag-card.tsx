/** One flag: what it is and serves, and every change the console can make to it. */
import { useCallback, useState } from 'react';
import type { Flag, JsonValue, WeightedVariation } from '../../src/index';
import type { AdminApi, AdminError, FlagChange } from './api';
import { describeRule, describeServe, describeVariation, flagType, formatValue } from './flag-format';
import { JsonEditor } from './json-editor';
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

type Editing = 'none' | 'rules' | 'flag';

export function FlagCard({ api, environmentId, flagKey, flag, onPublished }: FlagCardProps) {
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

      <ul className="variations" data-testid={`variations-${flagKey}`}>
        {variations.map((value, index) => (
          <li key={index} className={servedNow(flag, index) ? 'served' : undefined}>
            <span className="index">{index}</span>
            <code>{formatValue(value, 60)}</code>
            {index === flag.offVariation ? <Badge tone="off">off</Badge> : null}
            {fallthroughShare(flag, index)}
          </li>
        ))}
      </ul>

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

      {editing === 'rules' ? (
        <JsonEditor
          label="rules (JSON array)"
          initial={flag.rules}
          testId={`rules-editor-${flagKey}`}
          onSave={(value) => publishing(() => api.patchFlag(environmentId, flagKey, { rules: value }), 'rules')}
          onCancel={() => setEditing('none')}
        />
      ) : null}
      {editing === 'flag' ? (
        <JsonEditor
          label="the whole flag (JSON)"
          initial={flag}
          testId={`flag-editor-${flagKey}`}
          onSave={(value) => publishing(() => api.putFlag(environmentId, flagKey, value), 'replaced')}
          onCancel={() => setEditing('none')}
        />
      ) : null}

      <footer className="row">
        <button type="button" data-testid={`edit-rules-${flagKey}`} onClick={() => setEditing(editing === 'rules' ? 'none' : 'rules')}>
          Edit rules
        </button>
        <button type="button" data-testid={`edit-flag-${flagKey}`} onClick={() => setEditing(editing === 'flag' ? 'none' : 'flag')}>
          Edit JSON
        </button>
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
}

/** Whether everyone without a matching rule gets variation `index` right now. */
function servedNow(flag: Flag, index: number): boolean {
  if (!flag.on) return flag.offVariation === index;
  const serve = flag.fallthrough as { variation?: unknown; rollout?: unknown } | undefined;
  if (serve && 'variation' in serve) return serve.variation === index;
  return Array.isArray(serve?.rollout) && serve.rollout.some((slice: WeightedVariation) => slice?.variation === index && slice.weight > 0);
}

function fallthroughShare(flag: Flag, index: number) {
  const serve = flag.fallthrough as { variation?: unknown; rollout?: unknown } | undefined;
  if (serve && 'variation' in serve) return serve.variation === index ? <Badge tone="on">fallthrough</Badge> : null;
  if (!Array.isArray(serve?.rollout)) return null;
  const weight = (serve.rollout as WeightedVariation[]).filter((slice) => slice?.variation === index).reduce((sum, slice) => sum + (Number(slice.weight) || 0), 0);
  return weight ? <Badge tone="on">fallthrough {weight / 1000}%</Badge> : null;
}
