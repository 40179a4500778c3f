/**
 * The composables typed from `Register` (docs/vue.md, Typing): apps that register a flags type
 * or defaults, compiled against the sources in a program of their own (an augmentation holds for
 * its whole program). Every `@ts-expect-error` must meet an error (else TS2578), and nothing
 * else may fail: a wrong key or type is a compile error, and the right ones type as stated.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

const HEADER = `import type { Ref } from 'vue';
import type { EvaluationDetails, JsonValue } from 'flagplane';
import { createFlagsPlugin, useFlag, useFlagDetails, useFlagsClient } from 'flagplane/vue';
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
`;

const FLAGS_TYPED = `${HEADER}
type Flags = { 'new-checkout': boolean; 'checkout-color': 'blue' | 'green'; limits: { seats: number } };
const defaults = { 'new-checkout': false };
declare module 'flagplane/vue' {
  interface Register { flags: Flags; defaults: typeof defaults }
}
export function setup() {
  const checkout = useFlag('new-checkout');
  const color = useFlag('checkout-color');
  const limits = useFlag('limits', { seats: 1 });
  const details = useFlagDetails('checkout-color', 'blue');
  const checks: [
    Equal<typeof checkout, Readonly<Ref<boolean>>>,
    Equal<typeof color, Readonly<Ref<'blue' | 'green' | undefined>>>,
    Equal<typeof limits, Readonly<Ref<{ seats: number }>>>,
    Equal<typeof details, Readonly<Ref<EvaluationDetails<'blue' | 'green'>>>>,
    Equal<ReturnType<ReturnType<typeof useFlagsClient>['getStatus']>['status'], 'initializing' | 'ready' | 'failed'>,
  ] = [true, true, true, true, true];
  // @ts-expect-error a key the flags type does not declare
  useFlag('new-chekout', false);
  // @ts-expect-error a fallback of another type
  useFlag('new-checkout', 'yes');
  // @ts-expect-error a value the flag's type does not have
  useFlagDetails('checkout-color', 'red');
  // @ts-expect-error the client is typed too
  useFlagsClient().get('nope');
  // @ts-expect-error a ref is read-only
  checkout.value = true;
  createFlagsPlugin({ sdkKey: 'svc_sdk_client_x', baseUrl: 'https://flags.example.com', defaults: { 'new-checkout': true } });
  // @ts-expect-error a default of another type than the flags type
  createFlagsPlugin({ sdkKey: 'svc_sdk_client_x', baseUrl: 'https://flags.example.com', defaults: { 'new-checkout': 'no' } });
  return { checks, color };
}
`;

const DEFAULTS_TYPED = `${HEADER}
const defaults = { 'new-checkout': false, 'banner-text': 'Welcome', limits: { seats: 3 } };
declare module 'flagplane/vue' {
  interface Register { defaults: typeof defaults }
}
export function setup() {
  const checks: [
    Equal<ReturnType<typeof useFlag<'new-checkout'>>, Readonly<Ref<boolean>>>,
    Equal<typeof banner, Readonly<Ref<string>>>,
    Equal<typeof other, Readonly<Ref<number>>>,
    Equal<typeof variant, Readonly<Ref<'a' | 'b'>>>,
    Equal<typeof unknown, Readonly<Ref<JsonValue | undefined>>>,
    Equal<typeof mismatch, Readonly<Ref<string>>>,
  ] = [true, true, true, true, true, true];
  const banner = useFlag('banner-text');
  const other = useFlag('retries', 3);
  const variant = useFlag<'a' | 'b'>('variant', 'a');
  const unknown = useFlag('anything');
  // A fallback of another type types the read from the fallback: the client serves it on a type mismatch.
  const mismatch = useFlag('new-checkout', 'yes');
  // @ts-expect-error a default of another type than the registered one
  createFlagsPlugin({ sdkKey: 'svc_sdk_client_x', baseUrl: 'https://flags.example.com', defaults: { limits: { seats: 'many' } } });
  return checks;
}
`;

/** The diagnostics of a program made of `app` alone (a virtual file in test/vue), against the sources. */
function compile(app: string): string[] {
  const file = `${root}test/vue/typed-app.ts`;
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    paths: { flagplane: [`${root}src/index.ts`], 'flagplane/vue': [`${root}vue/index.ts`] },
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (name === file ? ts.createSourceFile(name, app, version) : read(name, version, ...rest));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  // The global the browser build defines (tsup.config.ts), declared for the sources.
  const program = ts.createProgram([file, `${root}src/shared/browser-build.d.ts`], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file && diagnostic.start !== undefined ? `${diagnostic.file.fileName.replace(root, '')}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1} ` : '';
    return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('flagplane/vue typed from Register', () => {
  it('with a flags type: only its keys, each of its type; reads without a fallback may be undefined unless a default has them', () => {
    expect(compile(FLAGS_TYPED)).toEqual([]);
  }, 60_000);

  it('with defaults: registered keys typed from them, other keys from their fallback', () => {
    expect(compile(DEFAULTS_TYPED)).toEqual([]);
  }, 60_000);

  it('the check is live: an app with an error the test does not expect fails', () => {
    expect(compile(`${HEADER}\nuseFlag('a', false).value satisfies string;\n`)).toEqual([`test/vue/typed-app.ts:6 Type 'boolean' does not satisfy the expected type 'string'.`]);
  }, 60_000);
});
