// Bundle size of what an app pays for: esbuild, browser, ESM, minified, then gzip -9.
// Each scenario is a tiny app entry. Parts of the core are measured by building the core
// again with that part replaced by a no-op stub: the part adds (core − core without it).
// A measure over its enforced budget fails the script.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

const APP = {
  core: `import { createClient } from './src/index.ts';
const client = createClient({ sdkKey: 'svc_sdk_client_xxxxxxxx', baseUrl: 'https://flags.example.com' });
console.log(client.get('flag', false));`,
  stream: `import { createClient } from './src/index.ts';
import { webSocketTransport } from './adapters/websocket.ts';
const client = createClient({ sdkKey: 'svc_sdk_client_xxxxxxxx', baseUrl: 'https://flags.example.com',
  streamUrl: 'https://flags.example.com', streamTransport: webSocketTransport });
console.log(client.get('flag', false));`,
  react: `import { createClient } from './src/index.ts';
import { FlagsProvider, useFlag } from './react/index.ts';
const client = createClient({ sdkKey: 'svc_sdk_client_xxxxxxxx', baseUrl: 'https://flags.example.com' });
console.log(client, FlagsProvider, useFlag);`,
};

/**
 * What replaces each part when it is measured out. The client's few lines of glue that call
 * a part stay in the build, so an increment counts the part's modules, not its call sites.
 */
const STUBS = {
  'events and identity': {
    'src/event-sender.ts': `export const createEventSender = () => ({ push() {}, track() {}, error() {}, flush: async () => {}, close: async () => {} });`,
    'src/identity.ts': `export const createOverlayFetcher = () => async () => {};`,
    'src/anonymous-id.ts': `export const generateId = () => 'anonymous'; export const loadAnonymousId = () => {};`,
  },
  // Issue 3's simple evaluation: off → the off variation, on → the fallthrough variation.
  evaluator: {
    'src/evaluation/index.ts': `export function evaluateFlag(flag) {
  const variation = flag.on ? flag.fallthrough : flag.offVariation;
  return { kind: 'served', value: flag.variations[variation], variation, reason: flag.on ? 'DEFAULT' : 'DISABLED' };
}`,
  },
  'localStorage, visibility, online and tabs': {
    'src/default-storage.ts': `export const browserStorage = () => undefined;`,
    'src/activity.ts': `export const watchActivity = () => ({ current: () => 'active', stop() {} });`,
    'src/platform/index.ts': `export const createTabSync = () => null; export const onPageHide = () => () => {};`,
  },
  'stream glue': {
    'src/stream-link.ts': `export const createStreamLink = () => ({ connect() {}, disconnect() {} });`,
  },
};

async function measure(entry, stubs = {}) {
  const byPath = new Map(Object.entries(stubs).map(([file, contents]) => [resolve(root, file), contents]));
  const result = await build({
    metafile: true,
    stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'app.ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    write: false,
    external: ['react', 'react-dom', 'react/jsx-runtime', 'react-dom/server'],
    logLevel: 'silent',
    plugins: [
      {
        name: 'stub-parts',
        setup(builder) {
          builder.onLoad({ filter: /\.tsx?$/ }, ({ path }) => (byPath.has(path) ? { contents: byPath.get(path), loader: 'js' } : undefined));
        },
      },
    ],
  });
  const code = result.outputFiles[0].contents;
  const [output] = Object.values(result.metafile.outputs);
  const parts = Object.entries(output.inputs).map(([file, { bytesInOutput }]) => ({ file, bytes: bytesInOutput }));
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length, parts };
}

const without = (...names) => Object.assign({}, ...names.map((name) => STUBS[name]));

const core = await measure(APP.core);
const stream = await measure(APP.stream);
const react = await measure(APP.react);
const partsOf = {};
for (const name of Object.keys(STUBS)) partsOf[name] = core.gzip - (await measure(APP.core, without(name))).gzip;
const coreWithEvaluator = await measure(APP.core, without('events and identity', 'localStorage, visibility, online and tabs', 'stream glue'));
const coreAlone = await measure(APP.core, without(...Object.keys(STUBS)));

/**
 * `target`: the budget. `budget`: what this script enforces — the target where it is
 * met, else a ceiling just above the measured size so that nothing grows unnoticed.
 * docs/size.md explains every row where the two differ; a budget only moves with a line there.
 */
const rows = [
  { name: 'whole browser SDK: createClient + get, default localStorage (issues 3, 7)', bytes: core.gzip, min: core.min, target: 6000, budget: 8400 },
  { name: 'whole browser SDK with the stream (issue 3)', bytes: stream.gzip, min: stream.min, target: 6000, budget: 9300 },
  { name: 'the stream adds (issue 5)', bytes: stream.gzip - core.gzip, target: 1000, budget: 1000 },
  // Modules only: with their call sites in client.ts (identify(), track, error, flush) they add
  // about 1,360 B, measured by hand in docs/size.md — so issue 6's budget is not met yet.
  { name: 'events and identity modules add (issue 6, call sites not counted)', bytes: partsOf['events and identity'], target: 1000, budget: 1000, partial: true },
  { name: 'React adds: FlagsProvider + useFlag, react external (issue 8)', bytes: react.gzip - core.gzip, target: 800, budget: 800 },
  { name: 'core with the evaluator (issue 4)', bytes: coreWithEvaluator.gzip, min: coreWithEvaluator.min, target: 3800, budget: 6850 },
  { name: 'core alone (issue 3)', bytes: coreAlone.gzip, min: coreAlone.min, target: 2500, budget: 5300 },
];

let failed = false;
for (const { name, bytes, min, target, budget, partial } of rows) {
  const ok = bytes <= budget;
  failed ||= !ok;
  const verdict = !ok ? 'OVER' : partial ? 'part' : bytes <= target ? 'ok  ' : 'miss';
  const minified = min ? ` (${min} B min)` : '';
  console.log(`${verdict} ${name}: ${bytes} B gzip${minified}; issue target ${target}, enforced ${budget}`);
}
console.log('     each part of the core (core minus core without it):');
for (const [name, bytes] of Object.entries(partsOf)) console.log(`     ${String(bytes).padStart(6)} B gzip  ${name}`);

/** `--parts`: minified bytes each source file contributes to the core (gzip cannot be split per file). */
if (process.argv.includes('--parts')) {
  console.log('     minified bytes per source file, core:');
  for (const { file, bytes } of core.parts.sort((a, b) => b.bytes - a.bytes)) if (bytes > 0) console.log(`     ${String(bytes).padStart(6)} ${file}`);
}
console.log("     'miss': works, but over the issue's target; 'part': measures only part of what the target covers; see docs/size.md");
process.exit(failed ? 1 : 0);
