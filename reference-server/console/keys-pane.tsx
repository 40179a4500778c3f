/** The SDK keys of one environment: create, revoke, and which one the demo uses. */
import { useState } from 'react';
import type { AdminApi, KeyInfo, KeyKind } from './api';
import { Badge, ErrorNote, Pane } from './ui';
import { useAction } from './use-action';

export function KeysPane(props: { api: AdminApi; environmentId: string; keys: KeyInfo[]; demoKey: string | null; onChanged(): void }) {
  const { api, environmentId, keys, demoKey, onChanged } = props;
  const create = useAction(onChanged);
  const revoke = useAction(onChanged);
  const [confirming, setConfirming] = useState<string | null>(null);
  const mine = keys.filter((key) => key.environmentId === environmentId);

  const createButton = (kind: KeyKind) => (
    <button
      type="button"
      data-testid={`create-${kind}-key`}
      disabled={create.pending}
      onClick={() => void create.run(async () => `created ${(await api.createKey(environmentId, kind)).key}`)}
    >
      New {kind} key
    </button>
  );

  return (
    <Pane title={`SDK keys · ${environmentId}`} testId="keys-pane" actions={<span className="row">{createButton('client')}{createButton('server')}</span>}>
      {create.state.kind === 'done' ? <p className="note">{create.state.note}</p> : null}
      <ErrorNote error={create.error} testId="create-key-error" />
      <ErrorNote error={revoke.error} testId="revoke-key-error" />
      <table className="table" data-testid="keys">
        <tbody>
          {mine.map(({ key, kind, revoked }) => (
            <tr key={key} data-testid={`key-${key}`} className={revoked ? 'revoked' : undefined}>
              <td>
                <Badge tone={kind === 'client' ? 'on' : 'warn'}>{kind}</Badge>
              </td>
              <td>
                <code>{key}</code>
                {key === demoKey ? <span className="muted"> · used by the demo</span> : null}
              </td>
              <td className="right">
                {revoked ? (
                  <span className="muted">revoked</span>
                ) : confirming === key ? (
                  <button
                    type="button"
                    className="danger"
                    data-testid={`confirm-revoke-${key}`}
                    disabled={revoke.pending}
                    onClick={() => void revoke.run(() => api.revokeKey(key)).then(() => setConfirming(null))}
                  >
                    Revoke: streams close, requests get 401
                  </button>
                ) : (
                  <button type="button" data-testid={`revoke-${key}`} onClick={() => setConfirming(key)}>
                    Revoke…
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Pane>
  );
}
