/** Asks for the admin token, saying where to find it. */
import { useState } from 'react';
import type { AdminError } from './api';
import { ErrorNote } from './ui';

export function TokenPrompt({ refused, onToken }: { refused: AdminError | null; onToken(token: string): void }) {
  const [value, setValue] = useState('');
  return (
    <section className="pane prompt" data-testid="token-prompt">
      <h2>Admin token needed</h2>
      <p>
        The console reads and changes flags through the reference server's admin API, which takes the admin token. The{' '}
        <code>npm start</code> banner prints it, with a link that opens this page already signed in:
      </p>
      <pre>{`  admin token  dev-admin-token\n  console      ${location.origin}/#token=dev-admin-token`}</pre>
      <p className="muted">
        (<code>dev-admin-token</code> is the demo config's; a config without <code>adminToken</code> gets a random one per start.) The token is kept
        in this tab's sessionStorage only.
      </p>
      {refused ? <ErrorNote error={refused} testId="token-refused" /> : null}
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <input data-testid="token-input" type="password" placeholder="admin token" autoComplete="off" value={value} onChange={(event) => setValue(event.target.value)} />
        <button type="submit" className="primary" data-testid="token-submit">
          Open the console
        </button>
      </form>
    </section>
  );
}
