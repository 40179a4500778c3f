/**
 * Apps typed by the module `flagplane types` writes (issue 25), as sample-apps.ts's are
 * written: `flags.ts` is the generator's output for test/cli/typed-flags-snapshot.ts, the app
 * must compile without an error, and each `// wrong: TSnnnn` line must fail with that error.
 * One program of their own: `Register { flags }` holds for every file the program has (React's
 * and Vue's, each in its own entry).
 */
import { typesOfSnapshot } from '../../cli/types/index';
import { TYPED_SNAPSHOT } from '../cli/typed-flags-snapshot';

const OPTIONS = `sdkKey: 'svc_sdk_client_abcdefgh', baseUrl: 'https://flags.example.com'`;

/** The client, a view, a test client and the hooks, typed by `Flags`; a client without it still takes any key. */
const TYPED = `import { createClient, forContext, heldSnapshot, type FlagsClient } from 'flagplane';
import { FlagsProvider, useFlag, useFlagDetails, useFlagsClient } from 'flagplane/react';
import { createTestClient } from 'flagplane/testing';
import type { Flags } from './flags';

const defaults = { 'new-checkout': false };
declare module 'flagplane/react' {
  interface Register {
    flags: Flags;
    defaults: typeof defaults;
  }
}
export const client = createClient<Flags>({ ${OPTIONS}, defaults });
export const checkout: boolean | undefined = client.get('new-checkout');
export const theme: 'dark' | 'light' = client.get('theme', 'dark');
export const seats: number = client.getDetails('seat-limit', 5).value;
export const retries: number | undefined = client.get('remote-config')?.retries;
export const tags: string[] | never[] | undefined = client.get('remote-config')?.tags;
export const quoted: "a'b" | 'c"d' = client.get("it's", "a'b");
export const palette: string | undefined = client.get('holiday', null)?.palette;
const view = forContext(client, { userId: 'u1', attributes: {}, segmentIds: [] });
export const viewTheme: 'dark' | 'light' = view.get('theme', 'light');
export const held = heldSnapshot(client);
export const asClient: FlagsClient = client;
const test = createTestClient<Flags>({ flags: { theme: 'light' } });
test.set('new-checkout', true);
export const testTheme: 'dark' | 'light' | undefined = test.get('theme');
export const testView: number = forContext(test, { attributes: {}, segmentIds: [] }).get('seat-limit', 1);
const untyped = createClient({ ${OPTIONS} });
export const anyKey: number = untyped.get('anything', 1);
function Checkout() {
  const on: boolean = useFlag('new-checkout');
  const color: 'dark' | 'light' | undefined = useFlag('theme');
  const size: number = useFlagDetails('seat-limit', 1).value;
  const fromClient: 'dark' | 'light' = useFlagsClient().get('theme', 'dark');
  return <p>{String(on)}{color}{size}{fromClient}</p>;
}
export const App = () => (
  <FlagsProvider client={client}>
    <Checkout />
  </FlagsProvider>
);
export const Owned = () => (
  <FlagsProvider options={{ ${OPTIONS}, defaults }}>
    <Checkout />
  </FlagsProvider>
);
`;

/** A misspelt key or a value of another type, in each place a flags type reaches. */
const WRONG = `import { createClient, forContext } from 'flagplane';
import { useFlag, useFlagDetails } from 'flagplane/react';
import { createTestClient } from 'flagplane/testing';
import type { Flags } from './flags';

const client = createClient<Flags>({ ${OPTIONS} });
export const typo = client.get('new-chekout', false); // wrong: TS2769
export const typoNoFallback = client.get('new-chekout'); // wrong: TS2769
export const fallback = client.get('new-checkout', 'yes'); // wrong: TS2769
export const literal = client.get('theme', 'blue'); // wrong: TS2769
export const typed: string = client.get('seat-limit', 5); // wrong: TS2322
export const maybeUnset: boolean = client.get('new-checkout'); // wrong: TS2322
export const details = client.getDetails('them', 'dark'); // wrong: TS2769
export const shape: string = client.get('remote-config', { retries: 1, tags: [] }).retries; // wrong: TS2322
export const view = forContext(client, { attributes: {}, segmentIds: [] }).get('seat-limits', 1); // wrong: TS2769
export const badDefault = createClient<Flags>({ ${OPTIONS}, defaults: { theme: 'blue' } }); // wrong: TS2322
export const unknownDefault = createClient<Flags>({ ${OPTIONS}, defaults: { them: 'dark' } }); // wrong: TS2561
const test = createTestClient<Flags>({ flags: { 'seat-limit': '5' } }); // wrong: TS2322
test.set('theme', 'blue'); // wrong: TS2345
test.set('other', 1); // wrong: TS2345
export function Label() {
  const size = useFlag('seat-limt', 1); // wrong: TS2769
  const theme: 'dark' = useFlag('theme', 'dark'); // wrong: TS2322
  const details = useFlagDetails('them'); // wrong: TS2769
  return String(size) + theme + String(details);
}
`;

/** The Vue composables typed by `Flags` through flagplane/vue's own `Register`: refs of its types. */
const VUE = `import type { Ref } from 'vue';
import { createFlagsPlugin, useFlag, useFlagDetails, useFlagsClient } from 'flagplane/vue';
import type { Flags } from './flags';

const defaults = { 'new-checkout': false };
declare module 'flagplane/vue' {
  interface Register {
    flags: Flags;
    defaults: typeof defaults;
  }
}
export const plugin = createFlagsPlugin({ ${OPTIONS}, defaults });
export function setup() {
  const on: Readonly<Ref<boolean>> = useFlag('new-checkout');
  const color: Readonly<Ref<'dark' | 'light' | undefined>> = useFlag('theme');
  const size: number = useFlagDetails('seat-limit', 1).value.value;
  const fromClient: 'dark' | 'light' = useFlagsClient().get('theme', 'dark');
  const typo = useFlag('seat-limt', 1); // wrong: TS2769
  const theme: Readonly<Ref<'dark'>> = useFlag('theme', 'dark'); // wrong: TS2322
  on.value = true; // wrong: TS2540
  return { on, color, size, fromClient, typo, theme };
}
export const badDefault = createFlagsPlugin({ ${OPTIONS}, defaults: { theme: 'blue' } }); // wrong: TS2322
`;

/** File name → source. */
export const TYPED_FLAG_APPS: Record<string, string> = {
  'flags.ts': typesOfSnapshot(TYPED_SNAPSHOT),
  'typed-app.tsx': TYPED,
  'typed-wrong.tsx': WRONG,
  'typed-vue.ts': VUE,
};
