import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Each app registers its own client type, so each is its own program: a `Register`
// augmentation holds for the whole program it is in.
const root = process.cwd();
const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
const parsed = new Map<string, ts.SourceFile | undefined>();

const PRELUDE = `
import type { ClientStatus, EvaluationDetails, FlagsClient, JsonValue } from 'flagplane';
import { flag, flagDetails, flagsStatus, getFlagsClient, setFlagsClient } from 'flagplane/svelte';
import type { Readable } from 'svelte/store';
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
export type { ClientStatus, EvaluationDetails, FlagsClient, JsonValue, Readable, Equal };
export { flag, flagDetails, flagsStatus, getFlagsClient, setFlagsClient };
`;

/** The type errors of `app` (a module beside the tests), compiled with the repository's options. */
function diagnosticsOf(app: string): string[] {
  const file = join(root, 'test/svelte/typed-app.ts');
  const host = ts.createCompilerHost(config.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    if (name === file) return ts.createSourceFile(name, PRELUDE + app, version);
    if (!parsed.has(name)) parsed.set(name, read(name, version, ...rest));
    return parsed.get(name);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram({ rootNames: [file, join(root, 'src/shared/browser-build.d.ts')], options: config.options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? `${d.file.fileName.slice(root.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start!).line + 1 - PRELUDE.split('\n').length + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('stores typed from the registered client', () => {
  it('a client typed by a flags type: its keys and types only; another key or type is a compile error', () => {
    const app = `
type Flags = { 'new-checkout': boolean; 'search-engine': 'v1' | 'v2'; limits: { seats: number } };
declare const client: FlagsClient<Flags, never>;
declare module 'flagplane/svelte' { interface Register { client: typeof client } }

setFlagsClient(client);
const typed: Equal<ReturnType<typeof getFlagsClient>, FlagsClient<Flags, never>> = true;
const checkout: Equal<typeof checkoutStore, Readable<boolean>> = true;
const checkoutStore = flag('new-checkout', false);
const engineStore = flag('search-engine');
const engine: Equal<typeof engineStore, Readable<'v1' | 'v2' | undefined>> = true;
const detailsStore = flagDetails('limits', { seats: 1 });
const details: Equal<typeof detailsStore, Readable<EvaluationDetails<{ seats: number }>>> = true;
const status: Equal<ReturnType<typeof flagsStatus>, Readable<ClientStatus>> = true;
// @ts-expect-error: not a key of Flags
flag('new-chekout', false);
// @ts-expect-error: 'yes' is not a boolean
flag('new-checkout', 'yes');
// @ts-expect-error: not a key of Flags
flagDetails('other');
// @ts-expect-error: a client typed by other flags
setFlagsClient({} as FlagsClient<{ other: number }, never>);
export { typed, checkout, engine, details, status };
`;
    expect(diagnosticsOf(app)).toEqual([]);
  });

  it('a client typed by its defaults: their keys from them, other keys from their fallback', () => {
    const app = `
const defaults = { 'new-checkout': false, banner: 'Welcome' };
declare const client: FlagsClient<typeof defaults>;
declare module 'flagplane/svelte' { interface Register { client: typeof client } }

const checkout: Equal<ReturnType<typeof flag<'new-checkout'>>, Readable<boolean>> = true;
const noFallback = flag('banner');
const banner: Equal<typeof noFallback, Readable<string>> = true;
const retriesStore = flag('retries', 3);
const retries: Equal<typeof retriesStore, Readable<number>> = true;
const anyStore = flag('other');
const other: Equal<typeof anyStore, Readable<JsonValue | undefined>> = true;
// A fallback of another type types the read from it: the client serves the fallback on a type mismatch.
const mismatchStore = flag('new-checkout', 'yes');
const mismatch: Equal<typeof mismatchStore, Readable<string>> = true;
export { checkout, banner, retries, other, mismatch };
`;
    expect(diagnosticsOf(app)).toEqual([]);
  });

  it('nothing registered: every store typed from its fallback, any client taken', () => {
    const app = `
const booleanStore = flag('beta', false);
const beta: Equal<typeof booleanStore, Readable<boolean>> = true;
const objectStore = flag('limits', { seats: 1 });
const limits: Equal<typeof objectStore, Readable<{ seats: number }>> = true;
const client: Equal<ReturnType<typeof getFlagsClient>, FlagsClient> = true;
setFlagsClient({} as FlagsClient<{ 'new-checkout': boolean }, never>);
export { beta, limits, client };
`;
    expect(diagnosticsOf(app)).toEqual([]);
  });
});
