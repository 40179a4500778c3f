/**
 * The real SDK against this server: a client on a client key of the environment, its
 * context, every flag's value and reason, and a React tree of `useFlag` readers whose render
 * counters show a publish arriving (publish → snapshot.updated → refetch → re-render).
 */
import { memo, useState } from 'react';
import type { EvaluationContext } from '../../src/index';
import { FlagsProvider, useFlagsStatus } from '../../react/index';
import type { KeyInfo } from './api';
import { clientKeys, demoKeyFor, useDemoClient, type ReportedError } from './demo-client';
import { ContextEditor } from './demo-context';
import { DetailsTable, LiveFlags } from './demo-flags';
import { Pane } from './ui';

const START_CONTEXT: EvaluationContext = { userId: 'demo-user', attributes: { country: 'US', plan: 'pro' } };

export interface DemoPaneProps {
  environmentId: string | null;
  /** `null` until the admin API answered (or without a token). */
  keys: KeyInfo[] | null;
  /** The client key chosen in the pane's select, if any. */
  picked: string | null;
  onPick(key: string): void;
  /** The flags pane's search: the demo shows the flags whose key matches it. */
  search: string;
}

/**
 * Memoised: its reads are evaluations, which the client reports as events; re-rendered by every
 * new event the console reads, it would report more, which the feed announces — a loop.
 */
export const DemoPane = memo(function DemoPane({ environmentId, keys, picked, onPick, search }: DemoPaneProps) {
  const usable = clientKeys(keys, environmentId);
  const sdkKey = demoKeyFor(keys, environmentId, picked);
  const [context, setContext] = useState<EvaluationContext>(START_CONTEXT);
  const { client, errors } = useDemoClient(sdkKey, context);

  let body;
  if (keys === null) body = <p className="muted">The demo picks a client key through the admin API, so it starts once the console has the admin token.</p>;
  else if (!sdkKey) body = <p className="muted">No usable client key in {environmentId}: create one in the keys pane.</p>;
  else if (!client) body = <p className="muted">Starting the client…</p>;
  else {
    body = (
      <FlagsProvider client={client}>
        <ClientStatusLine />
        <ContextEditor context={context} onContext={setContext} />
        <ReportedErrors errors={errors} />
        <h3>Values (getDetails)</h3>
        <DetailsTable search={search} />
        <h3>React: one useFlag reader per flag</h3>
        <p className="muted small">Each box re-renders only when its flag changes; the number counts its renders.</p>
        <LiveFlags search={search} />
      </FlagsProvider>
    );
  }

  return (
    <Pane
      title="Demo: the SDK in this page"
      testId="demo-pane"
      actions={
        usable.length > 1 ? (
          <select data-testid="demo-key" value={sdkKey ?? ''} onChange={(event) => onPick(event.target.value)}>
            {usable.map((key) => (
              <option key={key}>{key}</option>
            ))}
          </select>
        ) : sdkKey ? (
          <code className="small" data-testid="demo-key">
            {sdkKey}
          </code>
        ) : null
      }
    >
      {body}
    </Pane>
  );
});

function ClientStatusLine() {
  const { status, connection, source, version } = useFlagsStatus();
  return (
    <p className="status-line" data-testid="demo-status">
      <span data-testid="demo-readiness">{status}</span> · <span data-testid="demo-connection">{connection}</span> · from{' '}
      {source ?? 'nothing yet'} · version <span data-testid="demo-version">{version ?? '–'}</span>
    </p>
  );
}

function ReportedErrors({ errors }: { errors: ReportedError[] }) {
  if (!errors.length) return null;
  return (
    <ul className="errors" data-testid="demo-errors">
      {errors.map((error) => (
        <li key={`${error.at}/${error.message}`} className="error">
          onError <code>{error.code}</code> {error.message}
        </li>
      ))}
    </ul>
  );
}
