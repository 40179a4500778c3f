/** Small building blocks shared by the panes. */
import type { ReactNode } from 'react';
import type { AdminError } from './api';

export function Pane({ title, testId, actions, children }: { title: ReactNode; testId: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="pane" data-testid={testId}>
      <header className="pane-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** A failed call's message, with the member at fault when the server named one. */
export function ErrorNote({ error, testId }: { error: AdminError | null; testId: string }) {
  if (!error) return null;
  // The server's messages usually start with the path they name: show it once, highlighted.
  const { path, message } = error;
  const rest = path && message.startsWith(path) ? message.slice(path.length).trimStart() : message;
  return (
    <p className="error" role="alert" data-testid={testId}>
      {path ? <code className="error-path">{path}</code> : null}{path ? " " : null}
      <span className="error-message">{rest}</span>
      {error.status ? <span className="error-code"> ({error.status} {error.code})</span> : null}
    </p>
  );
}

export function Badge({ children, tone = 'plain', testId }: { children: ReactNode; tone?: 'plain' | 'on' | 'off' | 'warn'; testId?: string }) {
  return (
    <span className={`badge badge-${tone}`} data-testid={testId}>
      {children}
    </span>
  );
}

/** `12:03:04` from an ISO timestamp (the events' `receivedAt`). */
export function timeOf(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString([], { hour12: false });
}

/** An editor's last row: whatever `children` add, then Publish (`${testId}-save`) and Cancel (`${testId}-cancel`). */
export function EditorButtons(props: { testId: string; pending: boolean; saveLabel?: string; onSave(): void; onCancel(): void; children?: ReactNode }) {
  const { testId, pending, saveLabel = 'Publish', onSave, onCancel, children } = props;
  return (
    <div className="row">
      {children}
      <button type="button" className="primary" data-testid={`${testId}-save`} disabled={pending} onClick={onSave}>
        {pending ? 'Publishing…' : saveLabel}
      </button>
      <button type="button" data-testid={`${testId}-cancel`} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
