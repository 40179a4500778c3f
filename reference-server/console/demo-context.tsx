/** The demo client's context: a userId and attributes, applied with setContext or identify(). */
import { useState } from 'react';
import type { EvaluationContext, JsonValue } from '../../src/index';
import { useFlagsClient } from '../../react/index';
import { AdminError } from './api';
import { ErrorNote } from './ui';

function parseAttributes(text: string): Record<string, JsonValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AdminError(0, 'json', `not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AdminError(0, 'json', 'attributes must be a JSON object');
  return value as Record<string, JsonValue>;
}

/** userId and attributes; "Apply" calls setContext, "identify()" sends the identify event too. */
export function ContextEditor({ context, onContext }: { context: EvaluationContext; onContext(context: EvaluationContext): void }) {
  const client = useFlagsClient();
  const [userId, setUserId] = useState(context.userId ?? '');
  const [attributes, setAttributes] = useState(() => JSON.stringify(context.attributes ?? {}));
  const [error, setError] = useState<AdminError | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const read = (): EvaluationContext | null => {
    try {
      const next = { ...(userId ? { userId } : {}), attributes: parseAttributes(attributes) };
      setError(null);
      return next;
    } catch (failure) {
      setError(failure as AdminError);
      return null;
    }
  };
  const apply = () => {
    const next = read();
    if (!next) return;
    client.setContext(next);
    onContext(next);
    setNote('context applied');
  };
  const identify = async () => {
    const next = read();
    if (!next) return;
    if (!next.userId) return setError(new AdminError(0, 'input', 'identify() needs a userId'));
    setNote(`identify("${next.userId}")…`);
    // Neither rejects: failures go to onError, shown below.
    await client.identify(next.userId, next.attributes as Record<string, JsonValue>);
    onContext(next);
    await client.flush();
    setNote(`identified as ${next.userId}; event sent`);
  };

  return (
    <div className="context">
      <label className="control">
        <span className="label">userId</span>
        <input data-testid="demo-user-id" value={userId} onChange={(event) => setUserId(event.target.value)} />
      </label>
      <label className="control grow">
        <span className="label">attributes (JSON)</span>
        <textarea data-testid="demo-attributes" rows={2} spellCheck={false} value={attributes} onChange={(event) => setAttributes(event.target.value)} />
      </label>
      <ErrorNote error={error} testId="demo-context-error" />
      <div className="row">
        <button type="button" data-testid="demo-apply-context" onClick={apply}>
          Apply context
        </button>
        <button type="button" className="primary" data-testid="demo-identify" onClick={() => void identify()}>
          identify()
        </button>
        {note ? (
          <span className="muted small" data-testid="demo-note">
            {note}
          </span>
        ) : null}
      </div>
    </div>
  );
}
