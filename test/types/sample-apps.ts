/**
 * Small apps, as a strict TypeScript codebase writes them against the published package (issue
 * 23): `ok` files must compile without an error, each `wrong` line (marked `// wrong: TSnnnn`)
 * must fail with that error and no other line may.
 */

/** Every public subpath, imported by name: each must resolve to the package's declarations. */
const SUBPATHS = `import { createClient, forContext, type ClientOptions, type FlagSnapshot } from 'flagplane';
import { FlagsProvider, useFlag, useFlagDetails, type FlagsProviderProps } from 'flagplane/react';
import { webSocketTransport } from 'flagplane/adapters/websocket';
import { wsTransport } from 'flagplane/adapters/ws';
import { createLocalStorage } from 'flagplane/adapters/local-storage';
import { createIndexedDBStorage } from 'flagplane/adapters/indexeddb';
import { createMemoryStorage } from 'flagplane/adapters/memory';
import { createAsyncStorage } from 'flagplane/adapters/async-storage';
import { createFileStorage } from 'flagplane/adapters/file';
import { defineStreamTransport } from 'flagplane/stream';
import { createTestClient } from 'flagplane/testing';
import { FlagplaneWebProvider } from 'flagplane/openfeature';
import { startReferenceServer } from 'flagplane/reference-server';
export const used = [forContext, wsTransport, createLocalStorage, createIndexedDBStorage, createMemoryStorage, createAsyncStorage,
  createFileStorage, defineStreamTransport, createTestClient, FlagplaneWebProvider, startReferenceServer];
`;

/** Reads on a client created without `defaults`, and options that may be `undefined` (TS2375 before). */
const UNTYPED = `${SUBPATHS}
declare const bootstrap: FlagSnapshot | undefined;
declare const streamUrl: string | undefined;
declare const userId: string | undefined;
const options: ClientOptions = {
  sdkKey: 'svc_sdk_client_abcdefgh',
  baseUrl: 'https://flags.example.com',
  bootstrap,
  streamUrl,
  streamTransport: streamUrl ? webSocketTransport : undefined,
  context: { userId, attributes: { plan: undefined } },
  onError: undefined,
  pollInterval: undefined,
  cache: undefined,
};
export const client = createClient(options);
export const color: string = client.get('checkout-button-color', 'blue');
export const limit: number = client.get('limit', 3);
export const enabled: boolean = client.get('new-checkout', false);
export const theme: { dark: boolean } = client.get('theme', { dark: false });
export const label: string = client.getDetails('label', 'Buy').value;
export const anything = client.get('anything');
export const variant: 'control' | 'treatment' = client.get<'control' | 'treatment'>('variant', 'control');
export const props: FlagsProviderProps = { options: { sdkKey: 'svc_sdk_client_abcdefgh', baseUrl: 'https://flags.example.com', bootstrap } };
`;

/** The same reads through the React bindings, rendered in JSX. */
const REACT = `import { client } from './untyped';
import { FlagsProvider, useFlag, useFlagDetails } from 'flagplane/react';
function Button() {
  const color = useFlag('checkout-button-color', 'blue');
  const size = useFlagDetails('size', 12).value;
  return <button style={{ color, fontSize: size }}>{client.get('checkout-label', 'Buy')}</button>;
}
export const App = () => (
  <FlagsProvider client={client}>
    <Button />
  </FlagsProvider>
);
`;

/** A client with typed `defaults`: its known keys are typed from them, others from the fallback. */
const TYPED = `import { createClient } from 'flagplane';
const client = createClient({
  sdkKey: 'svc_sdk_client_abcdefgh',
  baseUrl: 'https://flags.example.com',
  defaults: { 'new-checkout': false, 'checkout-button-color': 'blue' as string, limit: 3 },
});
export const enabled: boolean = client.get('new-checkout');
export const color: string = client.get('checkout-button-color');
export const other: string = client.get('other', 'x');
`;

/** What must still fail: the read's type is the fallback's, not anything. */
const WRONG = `import { createClient } from 'flagplane';
import { useFlag } from 'flagplane/react';
import { missing } from 'flagplane/no-such-subpath'; // wrong: TS2307
const client = createClient({ sdkKey: 'svc_sdk_client_abcdefgh', baseUrl: 'https://flags.example.com' });
export const n: number = client.get('k', 'blue'); // wrong: TS2322
export const s: string = client.getDetails('k', 3).value; // wrong: TS2322
export const b: boolean = client.get('k'); // wrong: TS2322
export const typo = createClient({ sdkKey: 'svc_sdk_client_abcdefgh', baseUrl: 'https://flags.example.com', pollIntervall: 5 }); // wrong: TS2561
export function Label() {
  const size: string = useFlag('size', 12); // wrong: TS2322
  return size + String(missing);
}
const typed = createClient({ sdkKey: 'svc_sdk_client_abcdefgh', baseUrl: 'https://flags.example.com', defaults: { on: false } });
export const on: string = typed.get('on'); // wrong: TS2322
`;

/** File name → source. `.tsx` where JSX is. */
export const SAMPLE_APPS: Record<string, string> = {
  'untyped.ts': UNTYPED,
  'react-app.tsx': REACT,
  'typed.ts': TYPED,
  'wrong.tsx': WRONG,
};

/** The `// wrong: TSnnnn` marks of `apps`: `file:line` → the expected error code. */
export function expectedErrors(apps: Record<string, string>): Map<string, number> {
  const expected = new Map<string, number>();
  for (const [file, source] of Object.entries(apps)) {
    source.split('\n').forEach((line, index) => {
      const mark = /\/\/ wrong: TS(\d+)/.exec(line);
      if (mark) expected.set(`${file}:${index + 1}`, Number(mark[1]));
    });
  }
  return expected;
}
