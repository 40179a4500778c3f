// Claims of README.md and docs/*.md checked against the code. Each test names the doc and the
// line it checks; a claim the code contradicts is an `it.fails` quoting the sentence.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import tsupConfig from '../tsup.config';
import { startReferenceServer } from '../reference-server/index';
import { createClient } from '../src/client';
import { ConfigError } from '../src/shared/errors';
import { bucketFor, evaluateFlag } from '../src/evaluation/index';
import { createMemoryStorage } from '../src/storage/memory-storage';
import { resolveOptions } from '../src/options';
import { defaultScheduler } from '../src/shared/scheduler';
import type { FlagSnapshot } from '../src/snapshot/snapshot-types';
import { jsonResponse, response } from './helpers/fake-transport';
import { BASE_URL, CLIENT_KEY, harness } from './helpers/client-harness';
import { snapshotOf } from './helpers/snapshots';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  exports: Record<string, string | Record<'import' | 'require', { types: string; default: string }>>;
  bin: Record<string, string>;
  main: string;
  module: string;
  types: string;
};

type TsupOptions = { entry: Record<string, string>; external?: string[]; splitting?: boolean };
const tsupConfigs = tsupConfig as unknown as TsupOptions[];

/** The tsup config that builds `name` (an entry such as `adapters/ws`), and its source file. */
function entryOf(name: string): { config: TsupOptions; source: string } | undefined {
  for (const config of tsupConfigs) {
    const source = config.entry[name];
    if (source) return { config, source };
  }
  return undefined;
}

describe('package.json exports (README.md "One npm package with subpath entries", docs/*)', () => {
  // Every subpath the README table and the docs tell users to import.
  const documented = [
    'flagplane',
    'flagplane/react',
    'flagplane/vue',
    'flagplane/svelte',
    'flagplane/testing',
    'flagplane/stream',
    'flagplane/reference-server',
    'flagplane/adapters/websocket',
    'flagplane/adapters/ws',
    'flagplane/adapters/local-storage',
    'flagplane/adapters/indexeddb',
    'flagplane/adapters/async-storage',
    'flagplane/adapters/memory',
    'flagplane/adapters/file',
  ];

  it('maps every documented subpath to files that a tsup entry of the same name builds', () => {
    for (const specifier of documented) {
      const subpath = specifier === 'flagplane' ? '.' : `.${specifier.slice('flagplane'.length)}`;
      const target = pkg.exports[subpath];
      expect(target, specifier).toBeTypeOf('object');
      const { import: esm, require: cjs } = target as Record<'import' | 'require', { types: string; default: string }>;
      const name = esm.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '');
      expect(entryOf(name), `${specifier}: no tsup entry "${name}"`).toBeDefined();
      expect(esm.types).toBe(`./dist/${name}.d.ts`);
      expect(cjs).toEqual({ types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` });
    }
    // The top-level fields agree with ".".
    expect(pkg.main).toBe('./dist/index.cjs');
    expect(pkg.module).toBe('./dist/index.js');
    expect(pkg.types).toBe('./dist/index.d.ts');
  });

  it('the flagplane-server bin (README "npm start", reference-server.md "npx flagplane-server") is a built entry with a shebang', () => {
    expect(pkg.bin['flagplane-server']).toBe('./dist/reference-server/cli.js');
    const cli = entryOf('reference-server/cli');
    expect(cli).toBeDefined();
    expect(readFileSync(`${root}${cli!.source}`, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('the flagplane bin (check.md "flagplane check", reference-server.md "flagplane serve") is a built entry with a shebang', () => {
    expect(pkg.bin.flagplane).toBe('./dist/cli/flagplane.js');
    const bin = entryOf('cli/flagplane');
    expect(bin).toBeDefined();
    expect(readFileSync(`${root}${bin!.source}`, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  // README.md, Scripts: "`npm run build` | tsup: ESM + CJS + `.d.ts` per entry". Was false for
  // CommonJS TypeScript users: one ESM `.d.ts` served both conditions, so a Node16 CommonJS
  // consumer got TS1479 for every subpath. Each condition now has its own types.
  it('a `require` of any subpath resolves CommonJS types (.d.cts), not the ESM .d.ts', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      expect(target.require.types, subpath).toMatch(/\.d\.cts$/);
    }
  });

  // docs/client.md line 185: "All errors extend `FlagplaneError` and carry a `code`", with
  // `StreamError` in the table; line 51 recommends `wsTransport` from `flagplane/adapters/ws` on
  // Node 20. But tsup builds `adapters/ws` in its own (node) config, without the shared chunks
  // of the browser entries and without importing the core as the package: dist/adapters/ws.js
  // carries its own copy of the stream machine and of the FlagplaneError and StreamError classes.
  // Checked on a build: a 4401 with wsTransport reaches onError as an error for which
  // `error instanceof StreamError` and `error instanceof FlagplaneError` (imported from
  // 'flagplane') are both false; with webSocketTransport both are true.
  it('adapters/ws shares the core\'s error classes: built with the core\'s chunks, or importing the core as `flagplane`', () => {
    const ws = entryOf('adapters/ws')!;
    // Shared chunks need the core's entries in the same build and code splitting on (tsup
    // splits only ESM unless asked, and the CJS build would otherwise copy the classes).
    const sharesChunks = 'index' in ws.config.entry && 'stream' in ws.config.entry && ws.config.splitting === true;
    const importsCore = (ws.config.external ?? []).includes('flagplane');
    expect(sharesChunks || importsCore).toBe(true);
  });
});

describe('README.md and docs/*.md: every name imported from a flagplane entry is exported by it', () => {
  // docs/evaluation.md imported `evaluateFlag` from './evaluation', a path the package does not
  // export; a name a doc imports must be one its entry exports (values and types alike).
  it('holds for every `import … from \'flagplane…\'` of the docs', async () => {
    const ts = (await import('typescript')).default;
    const docs = ['README.md', ...readdirSync(`${root}docs`).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];
    const imports = docs.flatMap((doc) =>
      [...readFileSync(`${root}${doc}`, 'utf8').matchAll(/^import (?:type )?\{([^}]*)\} from '(flagplane[^']*)';/gm)].map(
        ([, names, specifier]) => ({ doc, specifier: specifier!, names: names!.split(',').map((name) => name.trim().replace(/^type /, '').split(' ')[0]!).filter(Boolean) }),
      ),
    );
    expect(imports.map(({ specifier }) => specifier)).toContain('flagplane');
    const sources = new Map(
      imports.map(({ specifier }) => {
        const target = pkg.exports[specifier === 'flagplane' ? '.' : `.${specifier.slice('flagplane'.length)}`] as Record<'import', { default: string }>;
        return [specifier, `${root}${entryOf(target.import.default.replace(/^\.\/dist\//, '').replace(/\.js$/, ''))!.source}`];
      }),
    );
    const program = ts.createProgram([...sources.values()], { strict: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.ReactJSX, noEmit: true });
    const checker = program.getTypeChecker();
    const exported = new Map(
      [...sources].map(([specifier, source]) => [specifier, new Set(checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(source)!)!).map((symbol) => symbol.name))]),
    );
    for (const { doc, specifier, names } of imports) {
      for (const name of names) expect(exported.get(specifier)!.has(name), `${doc}: ${name} from '${specifier}'`).toBe(true);
    }
  });
});

describe('docs/react.md: "Every file starts with \'use client\'"', () => {
  it('holds for every file of react/', () => {
    // Its package.json is the folder's stub for resolvers without `exports` (docs/runtimes.md).
    const files = readdirSync(`${root}react`).filter((file) => /\.tsx?$/.test(file));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(readFileSync(`${root}react/${file}`, 'utf8').startsWith("'use client';\n"), file).toBe(true);
    }
  });
});

describe('docs/client.md options table: defaults', () => {
  it('pollInterval 30000, readyTimeout 5000, requestTimeout 10000, flushAt 50, flushInterval 5000; a trailing slash of baseUrl is dropped', () => {
    const resolved = resolveOptions({ sdkKey: CLIENT_KEY, baseUrl: `${BASE_URL}/` });
    expect(resolved).toMatchObject({
      pollInterval: 30000,
      readyTimeout: 5000,
      requestTimeout: 10000,
      flushAt: 50,
      flushInterval: 5000,
      baseUrl: BASE_URL,
    });
  });

  it('storageKey defaults to `flagplane:snapshot:<fingerprint>` (client.md line 36: a 64-bit fingerprint), never the key itself', async () => {
    const cache = createMemoryStorage();
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 }), { etag: '"snapshot-1"' }), { cache });
    await client.ready();
    await client.close();
    const keys = [...cache.entries.keys()];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^flagplane:snapshot:[0-9a-f]{16}$/);
    expect(cache.entries.get(keys[0]!)).not.toContain(CLIENT_KEY);
  });

  // docs/adapters.md: "The client stores one JSON record per SDK key … under
  // `flagplane:snapshot:<16 hex digits>` (or your `storageKey`)." (It said 8 until the
  // fingerprint became 64 bits.)
  it('adapters.md: the default cache key is `flagplane:snapshot:<16 hex digits>`', async () => {
    const cache = createMemoryStorage();
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 })), { cache });
    await client.ready();
    await client.close();
    expect([...cache.entries.keys()][0]).toMatch(/^flagplane:snapshot:[0-9a-f]{16}$/);
  });
});

describe('docs/client.md: a scheduler or platform source without its functions is a ConfigError', () => {
  const quiet = { sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport: async () => response(500), events: false, syncTabs: false, anonymousId: 'a' } as const;

  function thrownBy(make: () => { close(): Promise<void> }): unknown {
    try {
      void make().close();
    } catch (error) {
      return error;
    }
    return undefined;
  }

  // client.md line 37: "`scheduler` | `Scheduler` | platform timers | `setTimeout`,
  // `clearTimeout`, `now`, `random`", and line 25/189: a `ConfigError` for "a `scheduler`,
  // `visibilitySource` or `onlineSource` without its functions" — "the only throw in the SDK".
  // src/options.ts SHAPES checks one method each (setTimeout, subscribe, subscribe): a scheduler
  // with setTimeout but no clearTimeout makes createClient throw
  // "TypeError: scheduler.clearTimeout is not a function".
  it('a scheduler with setTimeout only is a ConfigError, not a TypeError', () => {
    const scheduler = { setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms) };
    expect(thrownBy(() => createClient({ ...quiet, scheduler } as never))).toBeInstanceOf(ConfigError);
  });

  // Same sentence: a visibilitySource with subscribe but no isVisible throws
  // "TypeError: visibility.isVisible is not a function" out of createClient.
  it('a visibilitySource without isVisible is a ConfigError, not a TypeError', () => {
    const visibilitySource = { subscribe: () => () => undefined };
    expect(thrownBy(() => createClient({ ...quiet, visibilitySource } as never))).toBeInstanceOf(ConfigError);
  });

  it('an onlineSource without isOnline is a ConfigError, not a TypeError', () => {
    const onlineSource = { subscribe: () => () => undefined };
    expect(thrownBy(() => createClient({ ...quiet, onlineSource } as never))).toBeInstanceOf(ConfigError);
  });
});

describe('docs/client.md Behaviour and protocol.md §8: backoff', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The delays between consecutive requests of a client whose every fetch fails. */
  async function retryDelays(pollInterval: number, count: number): Promise<number[]> {
    const { client, requests } = harness(() => response(500), { pollInterval, readyTimeout: 0 });
    const times: number[] = [];
    const seen = () => {
      while (times.length < requests.length) times.push(Date.now());
    };
    await vi.advanceTimersByTimeAsync(0);
    seen();
    while (times.length < count + 1) {
      await vi.advanceTimersByTimeAsync(1000);
      seen();
    }
    await client.close();
    return times.slice(1).map((time, i) => time - times[i]!);
  }

  it('with the default pollInterval, retries after 1, 2, 4, 8, 16 s, then every 30 s (the poll interval)', async () => {
    expect(await retryDelays(30_000, 7)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  // client.md: "retried after `1000 × 2^(n-1)` ms, capped at the smaller of `pollInterval` and
  // 60 s"; protocol.md: "`min(pollInterval, 60 s, 1000 × 2^(attempt-1)) + jitter`". The docs
  // said pollInterval alone until this test caught it.
  it('with pollInterval 600000, the 7th retry waits 60 s: capped at 60 s as well as at pollInterval', async () => {
    const delays = await retryDelays(600_000, 7);
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000]);
  });
});

describe('docs/client.md: ready() and 304s', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  // client.md: "A 304 keeps the snapshot and changes no flag; listeners hear it only when it
  // clears the error of an earlier failed fetch" (it said "notifies nobody" until this test).
  it('a 304 after a failed fetch clears the error: listeners hear an empty change set and the new status', async () => {
    let reply = jsonResponse(200, snapshotOf(1, { a: 1 }), { etag: '"snapshot-1"' });
    const { client } = harness(() => reply, { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    reply = response(500);
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.getStatus().error).not.toBeNull();
    const heard: unknown[] = [];
    client.subscribe((event) => heard.push(event));
    reply = response(304, '', { etag: '"snapshot-1"' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.getStatus().error).toBeNull();
    const heardBeforeClose = [...heard] as Array<{ changed: Set<string>; status: unknown }>;
    await client.close();
    expect(heardBeforeClose).toHaveLength(1);
    expect([...heardBeforeClose[0]!.changed]).toEqual([]);
    expect(heardBeforeClose[0]!.status).toMatchObject({ error: null, version: 1 });
  });

  it('a 304 with no error to clear notifies nobody', async () => {
    let reply = jsonResponse(200, snapshotOf(1, { a: 1 }), { etag: '"snapshot-1"' });
    const { client } = harness(() => reply, { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    const heard: unknown[] = [];
    client.subscribe((event) => heard.push(event));
    reply = response(304, '', { etag: '"snapshot-1"' });
    await vi.advanceTimersByTimeAsync(1000);
    const heardBeforeClose = [...heard];
    await client.close();
    expect(heardBeforeClose).toEqual([]);
  });
});

describe("docs/client.md: ready() resolves with source network, cache, bootstrap or tab", () => {
  // "`{ status: 'ready', source: 'network' | 'cache' | 'bootstrap' | 'tab' }` on the first
  // snapshot (`'tab'`: another tab of the same origin fetched it)" — 'tab' was missing.
  it("a first snapshot from another tab resolves ready() with source 'tab'", async () => {
    const sdkKey = 'svc_sdk_client_docs_claims_tab_01';
    const fetching = createClient({
      sdkKey,
      baseUrl: BASE_URL,
      transport: async () => jsonResponse(200, snapshotOf(3, { a: 1 }), { etag: '"snapshot-3"' }),
      events: false,
      anonymousId: 'a',
      // Two "tabs" in one Node process: tab sync is a page's default, asked for here.
      syncTabs: true,
      readyTimeout: 0,
      scheduler: { ...defaultScheduler, random: () => 0 },
    });
    const waiting = createClient({
      sdkKey,
      baseUrl: BASE_URL,
      transport: (request) => new Promise((resolve) => request.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }))),
      events: false,
      anonymousId: 'b',
      syncTabs: true,
    });
    try {
      const result = await waiting.ready();
      expect(result).toEqual({ status: 'ready', source: 'tab' });
    } finally {
      await Promise.all([fetching.close(), waiting.close()]);
    }
  });
});

describe('docs/evaluation.md: the read-path example and the worked example', () => {
  // The snapshot of protocol.md §2.
  const snapshot: FlagSnapshot = {
    schemaVersion: 1,
    version: 42,
    environmentId: 'production',
    flags: {
      'new-checkout': {
        on: true,
        variations: [false, true],
        offVariation: 0,
        rules: [
          {
            id: 'staff',
            conditions: [{ kind: 'attribute', attribute: 'email', op: 'endsWith', values: ['@example.com'] }],
            serve: { variation: 1 },
          },
          { id: 'beta-segment', conditions: [{ kind: 'segment', segmentIds: ['beta-testers'] }], serve: { variation: 1 } },
        ],
        fallthrough: { rollout: [{ variation: 0, weight: 90000 }, { variation: 1, weight: 10000 }] },
        salt: 'new-checkout',
        clientSide: true,
      },
    },
  };

  it("getDetails('new-checkout') for a staff email is the documented object; overrides report OVERRIDE with null variation and version", async () => {
    const { client } = harness(() => 'hang', { bootstrap: snapshot, context: { attributes: { email: 'ana@example.com' } } });
    expect(client.getDetails('new-checkout')).toEqual({
      key: 'new-checkout',
      value: true,
      reason: 'TARGETING_MATCH',
      variation: 1,
      ruleId: 'staff',
      version: 42,
    });
    client.setOverrides({ 'new-checkout': false });
    expect(client.getDetails('new-checkout')).toMatchObject({ value: false, reason: 'OVERRIDE', variation: null, version: null });
    expect(client.getAll()).toEqual({ 'new-checkout': false });
    client.setOverrides({});
    expect(client.get('new-checkout')).toBe(true);
    await client.close();
  });

  it('user-42 is bucket 4125 and gets variation 0 with SPLIT; "new-checkout.José" is bucket 1655', () => {
    expect(bucketFor('new-checkout', 'user-42')).toBe(4125);
    expect(evaluateFlag(snapshot.flags['new-checkout']!, { userId: 'user-42' }, 'user-42')).toEqual({
      kind: 'served',
      value: false,
      variation: 0,
      reason: 'SPLIT',
    });
    expect(Buffer.from('new-checkout.José', 'utf8').toString('hex')).toBe('6e65772d636865636b6f75742e4a6f73c3a9');
    expect(bucketFor('new-checkout', 'José')).toBe(1655);
  });
});

describe('docs/reference-server.md: the programmatic API', () => {
  it('"Unknown environments and keys make publish, resync, createKey, revokeKey and setTraits throw"; close() twice is the same promise', async () => {
    const server = await startReferenceServer({ port: 0 });
    try {
      expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.wsUrl).toBe(server.baseUrl.replace('http:', 'ws:'));
      await expect(server.resync('qa')).rejects.toThrow();
      await expect(server.createKey('qa', 'client')).rejects.toThrow();
      await expect(server.setTraits('qa', 'user-1', { plan: 'pro' })).rejects.toThrow();
      await expect(server.revokeKey('svc_sdk_client_never_issued_01')).rejects.toThrow();
      expect(await server.createKey('staging', 'server')).toMatch(/^svc_sdk_server_[A-Za-z0-9_-]{8,128}$/);
      // "Only the envelope is checked …, so a schema-2 snapshot can be published".
      expect(await server.publish('production', { schemaVersion: 2, flags: {} })).toEqual({ version: 2 });
    } finally {
      const first = server.close();
      expect(server.close()).toBe(first);
      await first;
    }
  });

  it('the admin curl examples answer as shown (keys POSTed with curl -d, a form content type, are accepted)', async () => {
    const server = await startReferenceServer({ port: 0 });
    const auth = { authorization: `Bearer ${server.adminToken}` };
    try {
      const key = await fetch(`${server.baseUrl}/admin/v1/environments/staging/keys`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: '{"kind":"client"}',
      });
      expect(key.status).toBe(201);
      expect(await key.json()).toMatchObject({ key: expect.stringMatching(/^svc_sdk_client_/), kind: 'client', environmentId: 'staging' });
      const revoke = await fetch(`${server.baseUrl}/admin/v1/keys/svc_sdk_client_demo_stg_0001`, { method: 'DELETE', headers: auth });
      expect(revoke.status).toBe(204);
      const traits = await fetch(`${server.baseUrl}/admin/v1/environments/production/traits/user-7`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: '{"plan":"enterprise","country":"DE"}',
      });
      expect(traits.status).toBe(200);
      expect(await traits.json()).toEqual({ userId: 'user-7', traits: { plan: 'enterprise', country: 'DE' } });
    } finally {
      await server.close();
    }
  });
});
