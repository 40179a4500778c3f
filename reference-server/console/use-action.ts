import { useCallback, useState } from 'react';
import { AdminError } from './api';

export type ActionState = { kind: 'idle' } | { kind: 'pending' } | { kind: 'failed'; error: AdminError } | { kind: 'done'; note: string };

/** Any failure as an AdminError, so every error in the UI has a message (and maybe a path). */
export function toAdminError(error: unknown): AdminError {
  if (error instanceof AdminError) return error;
  return new AdminError(0, 'console', error instanceof Error ? error.message : String(error));
}

/**
 * One admin change at a time for one control: `run(action)` calls it, keeps its failure for
 * the control to show next to itself, and calls `onDone` (a refresh of the panes) on success.
 * It never rejects, so no click can leave an unhandled rejection.
 */
export function useAction(onDone: () => void) {
  const [state, setState] = useState<ActionState>({ kind: 'idle' });
  const run = useCallback(
    async (action: () => Promise<string | void>): Promise<boolean> => {
      setState({ kind: 'pending' });
      try {
        const note = await action();
        setState(note ? { kind: 'done', note } : { kind: 'idle' });
        onDone();
        return true;
      } catch (error) {
        setState({ kind: 'failed', error: toAdminError(error) });
        return false;
      }
    },
    [onDone],
  );
  const reset = useCallback(() => setState({ kind: 'idle' }), []);
  return { state, run, reset, pending: state.kind === 'pending', error: state.kind === 'failed' ? state.error : null };
}

/**
 * An editor's Publish: `submit(build)` builds the value to send (an error thrown there is shown
 * and nothing is sent), sends it, and keeps what `send` resolves to — the server's refusal to
 * show next to the field, or `null` once published.
 */
export function useSubmit<T>(send: (value: T) => Promise<AdminError | null>) {
  const [error, setError] = useState<AdminError | null>(null);
  const [pending, setPending] = useState(false);
  const submit = async (build: () => T) => {
    let value: T;
    try {
      value = build();
    } catch (buildError) {
      setError(toAdminError(buildError));
      return;
    }
    setPending(true);
    setError(await send(value));
    setPending(false);
  };
  return { error, pending, submit };
}
