import { useState } from 'react';
import { AdminError } from './api';
import { EditorButtons, ErrorNote } from './ui';
import { useSubmit } from './use-action';

export interface JsonEditorProps {
  label: string;
  /** The value the editor starts from (read once, when it opens). */
  initial: unknown;
  /** Prefix of the test ids: `${testId}-input`, `-save`, `-cancel`, `-error`. */
  testId: string;
  saveLabel?: string;
  /** Sends the parsed value; resolves to `null`, or to the error to show next to the field. */
  onSave(value: unknown): Promise<AdminError | null>;
  onCancel(): void;
}

/**
 * A textarea holding JSON. What does not parse is reported here; what parses goes to the
 * server, whose error (`path` and `message`) is shown under the field, the draft kept.
 */
export function JsonEditor({ label, initial, testId, saveLabel = 'Publish', onSave, onCancel }: JsonEditorProps) {
  const [text, setText] = useState(() => JSON.stringify(initial, null, 2));
  const { error, pending, submit } = useSubmit(onSave);
  const parsed = (): unknown => {
    try {
      return JSON.parse(text);
    } catch (parseError) {
      throw new AdminError(0, 'json', `not JSON: ${(parseError as Error).message}`);
    }
  };

  return (
    <div className="json-editor">
      <label>
        <span className="label">{label}</span>
        <textarea
          data-testid={`${testId}-input`}
          value={text}
          spellCheck={false}
          rows={Math.min(24, Math.max(6, text.split('\n').length + 1))}
          onChange={(event) => setText(event.target.value)}
          aria-invalid={error ? true : undefined}
        />
      </label>
      <ErrorNote error={error} testId={`${testId}-error`} />
      <EditorButtons testId={testId} pending={pending} saveLabel={saveLabel} onSave={() => void submit(parsed)} onCancel={onCancel} />
    </div>
  );
}
