import { spawn } from 'node:child_process';
import { get as httpGet } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runCli } from '../../reference-server/cli-main';
import type { ReferenceServer } from '../../reference-server/index';
import demo from '../../reference-server/demo.json';
import { DEMO, StreamClient, withTimeout } from './helpers';
import { bundleCli } from '../helpers/cli-bundle';

const root = resolve(import.meta.dirname, '../..');
let dir: string;
const running: ReferenceServer[] = [];

function collector() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (text: string) => out.push(text), err: (text: string) => err.push(text) } };
}

const customConfig = {
  adminToken: 'custom-admin-token',
  environments: [
    {
      id: 'eu-prod',
      kind: 'production',
      keys: [{ key: 'svc_sdk_client_custom_eu_01', kind: 'client' }],
      snapshot: {
        schemaVersion: 1,
        version: 40,
        environmentId: 'eu-prod',
        flags: {
          visible: { on: true, variations: [true], offVariation: 0, rules: [], fallthrough: { variation: 0 }, salt: 'v', clientSide: true },
          hidden: { on: true, variations: [true], offVariation: 0, rules: [], fallthrough: { variation: 0 }, salt: 'h', clientSide: false },
        },
      },
    },
  ],
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flagplane-cli-'));
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runCli', () => {
  it('prints usage for --help and exits 0', async () => {
    const { out, io } = collector();
    expect(await runCli(['--help'], io)).toEqual({ kind: 'exit', code: 0 });
    expect(out.join('\n')).toMatch(/--config <file>[\s\S]*--port <port>[\s\S]*--host <host>/);
  });

  it.each([[['--port', 'abc']], [['--port', '70000']], [['--port', '-1']], [['--bogus']], [['extra']]])(
    'exits 2 with usage for %j',
    async (argv) => {
      const { err, io } = collector();
      expect(await runCli(argv, io)).toEqual({ kind: 'exit', code: 2 });
      expect(err.join('\n')).toContain('Usage:');
    },
  );

  it('exits 1 naming the problem of a missing, non-JSON or invalid config', async () => {
    const notJson = join(dir, 'not-json.json');
    await writeFile(notJson, '{ nope');
    const invalid = join(dir, 'invalid.json');
    await writeFile(invalid, JSON.stringify({ environments: [{ ...customConfig.environments[0], keys: [{ key: 'svc_sdk_server_x', kind: 'server' }] }] }));
    const cases: Array<[string, RegExp]> = [
      [join(dir, 'missing.json'), /missing\.json.*cannot be read/],
      [notJson, /not-json\.json.*is not JSON/],
      [invalid, /invalid\.json.*environments\[0\]\.keys\[0\]\.key must match/],
    ];
    for (const [file, message] of cases) {
      const { err, io } = collector();
      expect(await runCli(['--config', file], io)).toEqual({ kind: 'exit', code: 1 });
      expect(err.join('\n')).toMatch(message);
    }
  });

  it('takes --limit name=value, repeatable, and refuses an unknown limit or a bad value with the usage', async () => {
    const { io } = collector();
    const outcome = await runCli(['--port', '0', '--limit', 'snapshotVersions=2', '--limit', 'requestsPerSecondPerKey=1'], io);
    if (outcome.kind !== 'running') throw new Error(`CLI exited: ${JSON.stringify(outcome)}`);
    running.push(outcome.server);
    for (let n = 0; n < 3; n++) await outcome.server.publish('production', { schemaVersion: 1, flags: {} });
    expect(outcome.server.stores.environments.get('production')!.kv.snapshots.size).toBe(2);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${outcome.server.baseUrl}/sdk/v1/snapshot`, { headers: { authorization: `Bearer ${DEMO.prodClientKey}` } })).status);
    expect(statuses).toEqual([200, 200, 429]);
    for (const bad of [['--limit', 'nope=1'], ['--limit', 'eventsPerKind=0'], ['--limit', 'eventsPerKind']]) {
      const { err, io: refused } = collector();
      expect(await runCli(bad, refused)).toEqual({ kind: 'exit', code: 2 });
      expect(err.join('\n')).toMatch(/limit/);
      expect(err.join('\n')).toContain('Usage:');
    }
  });

  it('starts with a --config file and prints URLs, keys, the admin token and a working curl line', async () => {
    const file = join(dir, 'custom.json');
    await writeFile(file, JSON.stringify(customConfig));
    const { out, io } = collector();
    const outcome = await runCli(['--config', file, '--port', '0', '--host', '127.0.0.1'], io);
    if (outcome.kind !== 'running') throw new Error(`CLI exited: ${JSON.stringify(outcome)}`);
    running.push(outcome.server);
    const banner = out.join('\n');
    const { baseUrl, wsUrl } = outcome.server;
    expect(banner).toContain(baseUrl);
    expect(banner).toContain(`${wsUrl}/sdk/v1/stream`);
    expect(banner).toContain('custom-admin-token');
    expect(banner).toContain(`  instance     ${outcome.server.instanceId}\n`);
    expect(banner).toMatch(/eu-prod \(production, version 40\)/);
    const curl = /curl -H 'Authorization: Bearer (\S+)' (\S+)/.exec(banner);
    expect(curl?.[1]).toBe('svc_sdk_client_custom_eu_01');
    const response = await fetch(curl![2]!, { headers: { authorization: `Bearer ${curl![1]}` } });
    expect(response.status).toBe(200);
    expect(Object.keys((await response.json()).flags)).toEqual(['visible']);
  });

  it('prints the console first, with the admin token in the fragment, and serves it from the given folder', async () => {
    const consoleDir = join(dir, 'console');
    await mkdir(consoleDir, { recursive: true });
    await writeFile(join(consoleDir, 'console.js'), '// the console');
    const { out, io } = collector();
    const outcome = await runCli(['--port', '0'], io, { dir: consoleDir, built: true });
    if (outcome.kind !== 'running') throw new Error(`CLI exited: ${JSON.stringify(outcome)}`);
    running.push(outcome.server);
    const [title, first] = out.join('\n').split('\n');
    expect(title).toBe('flagplane reference server');
    expect(first).toBe(`  console      ${outcome.server.baseUrl}/#token=dev-admin-token`);
    expect(await (await fetch(`${outcome.server.baseUrl}/console/console.js`)).text()).toBe('// the console');
  });

  it('says how to build a console that is not built', async () => {
    const { out, io } = collector();
    const outcome = await runCli(['--port', '0'], io, { dir: '/nowhere/console/', built: false });
    if (outcome.kind !== 'running') throw new Error(`CLI exited: ${JSON.stringify(outcome)}`);
    running.push(outcome.server);
    expect(out.join('\n').split('\n')[1]).toBe('  console      not built (no console.js in /nowhere/console/): run npm run build');
  });

  it('exits 1 when the port is taken', async () => {
    const first = collector();
    const outcome = await runCli(['--port', '0'], first.io);
    if (outcome.kind !== 'running') throw new Error('first CLI did not start');
    running.push(outcome.server);
    const { err, io } = collector();
    expect(await runCli(['--port', String(outcome.server.port)], io)).toEqual({ kind: 'exit', code: 1 });
    expect(err.join('\n')).toMatch(/cannot listen/);
  });
});

describe('the bundled CLI as a process', () => {
  const outfile = join(root, 'node_modules', '.cache', 'flagplane-cli-test', 'cli.mjs');
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await bundleCli(root, outfile);
  });

  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  it('serves the demo config, then on SIGTERM closes streams with 1001 and exits 0', async () => {
    const proc = spawn(process.execPath, [outfile, '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => proc.on('exit', (code) => resolveExit(code)));
    const baseUrl = await withTimeout(
      new Promise<string>((resolveUrl, reject) => {
        proc.stdout!.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /base URL\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
          if (match && stdout.includes('curl')) resolveUrl(match[1]!);
        });
        proc.on('exit', () => reject(new Error(`CLI exited early: ${stderr}`)));
      }),
      10_000,
      'the CLI banner',
    );
    expect(stdout).toContain(DEMO.prodClientKey);
    expect(stdout).toContain(DEMO.adminToken);

    const response = await fetch(`${baseUrl}/sdk/v1/snapshot`, { headers: { authorization: `Bearer ${DEMO.prodClientKey}` } });
    expect(response.status).toBe(200);
    expect((await response.json()).flags['payments-provider']).toBeUndefined();

    const stream = new StreamClient(new WebSocket(`${baseUrl.replace('http', 'ws')}/sdk/v1/stream`, ['flagplane.v1', `flagplane.key.${DEMO.prodClientKey}`]));
    await stream.next('connected');

    proc.kill('SIGTERM');
    expect(await withTimeout(stream.closed, 5000, 'stream close')).toEqual({ code: 1001, reason: 'going away' });
    expect(await withTimeout(exited, 10_000, 'CLI exit')).toBe(0);
    expect(stdout).toMatch(/\nSIGTERM: closing streams, finishing requests\nclosed 1 stream with 1001 \(going away\); 0 requests in flight finished, 0 cut; engines closed; \d+ ms\n$/);
    expect(stderr).toBe('');
  });
});

describe('runCli with hostile arguments and configs', () => {
  it('an empty --host (say `--host "$HOST"` with HOST unset) is refused with exit 2, not bound to every interface', async () => {
    // Was a bug: `--host ''` passes parseCliArgs; node:http treats '' as "unspecified" and listens
    // on `::` (all interfaces) although the default is 127.0.0.1, and the banner prints
    // `http://:<port>`, which is not a URL.
    const { err, io } = collector();
    const outcome = await runCli(['--port', '0', '--host', ''], io);
    if (outcome.kind === 'running') {
      const { baseUrl } = outcome.server;
      await outcome.server.close();
      expect.fail(`the server started, with base URL ${baseUrl}`);
    }
    expect(outcome).toEqual({ kind: 'exit', code: 2 });
    expect(err.join('\n')).toMatch(/--host/);
  });

  it('a config nested too deeply to copy is an invalid config (exit 1 naming the file), not a RangeError thrown out of runCli', async () => {
    // Was a bug: parseSnapshot's structuredClone overflows the stack on a deeply nested flag; the
    // RangeError is not a ConfigError, so runCli rethrows it and cli.ts prints a bare stack
    // trace ("Maximum call stack size exceeded") instead of "invalid config: <file>: …".
    const file = join(dir, 'deep.json');
    const text = JSON.stringify(demo).replace('"flags":{', `"flags":{"deep":${'['.repeat(20_000)}1${']'.repeat(20_000)},`);
    await writeFile(file, text);
    const { err, io } = collector();
    const outcome = await runCli(['--config', file, '--port', '0'], io).catch((error: unknown) => ({ threw: String(error) }));
    if ('kind' in outcome && outcome.kind === 'running') await outcome.server.close();
    expect(outcome).toEqual({ kind: 'exit', code: 1 });
    expect(err.join('\n')).toMatch(/^invalid config: .*deep\.json/);
  });
});

describe('runCli off loopback and behind proxies (issue 27, part 7)', () => {
  const started = (outcome: Awaited<ReturnType<typeof runCli>>) => {
    if (outcome.kind !== 'running') throw new Error(`CLI exited: ${JSON.stringify(outcome)}`);
    running.push(outcome.server);
    return outcome.server;
  };

  it('refuses --host 0.0.0.0 with the demo credentials: exit 1 and how to fix it', async () => {
    const { err, io } = collector();
    expect(await runCli(['--port', '0', '--host', '0.0.0.0'], io, undefined, {})).toEqual({ kind: 'exit', code: 1 });
    expect(err.join('\n')).toMatch(/^refusing to start listening on 0\.0\.0\.0 \(not loopback\) with the demo credentials .*--admin-token or FLAGPLANE_ADMIN_TOKEN.*--allow-demo-credentials/);
  });

  it('starts off loopback with a config of one’s own, or with --allow-demo-credentials and a warning', async () => {
    const file = join(dir, 'own.json');
    await writeFile(file, JSON.stringify(customConfig));
    const own = collector();
    expect(started(await runCli(['--port', '0', '--host', '0.0.0.0', '--config', file], own.io, undefined, {})).adminToken).toBe('custom-admin-token');
    expect(own.err).toEqual([]);
    const demo = collector();
    started(await runCli(['--port', '0', '--host', '0.0.0.0', '--allow-demo-credentials'], demo.io, undefined, {}));
    expect(demo.err.join('\n')).toMatch(/^warning: --allow-demo-credentials: anyone who reaches this server/);
  });

  it('takes the admin token from --admin-token, else FLAGPLANE_ADMIN_TOKEN, over the config’s; a short one is exit 2', async () => {
    const fromFlag = collector();
    const server = started(await runCli(['--port', '0', '--admin-token', 'flag-token-0001'], fromFlag.io, undefined, { FLAGPLANE_ADMIN_TOKEN: 'env-token-0001' }));
    expect(fromFlag.out.join('\n')).toContain('admin token  flag-token-0001');
    expect((await fetch(`${server.baseUrl}/admin/v1/environments`, { headers: { authorization: 'Bearer flag-token-0001' } })).status).toBe(200);
    const fromEnv = collector();
    expect(started(await runCli(['--port', '0'], fromEnv.io, undefined, { FLAGPLANE_ADMIN_TOKEN: 'env-token-0001' })).adminToken).toBe('env-token-0001');
    const short = collector();
    expect(await runCli(['--admin-token', 'short'], short.io, undefined, {})).toEqual({ kind: 'exit', code: 2 });
    expect(short.err.join('\n')).toMatch(/^--admin-token \(or FLAGPLANE_ADMIN_TOKEN\) must be at least 8 characters/);
  });

  it('takes --trust-proxy and --allowed-hosts as comma-separated, repeatable lists, and refuses a bad entry with exit 2', async () => {
    const { io } = collector();
    const server = started(
      await runCli(['--port', '0', '--trust-proxy', '127.0.0.1, ::1', '--trust-proxy', '10.0.0.0/8', '--allowed-hosts', 'flags.test', '--limit', 'streamsPerAddress=1'], io, undefined, {}),
    );
    const answer = (host: string) =>
      new Promise<number>((resolveStatus, reject) => {
        httpGet({ host: '127.0.0.1', port: server.port, path: '/sdk/v1/snapshot', headers: { host, authorization: `Bearer ${DEMO.prodClientKey}` } }, (res) => {
          res.resume();
          resolveStatus(res.statusCode ?? 0);
        }).on('error', reject);
      });
    expect([await answer('flags.test'), await answer('evil.example')]).toEqual([200, 403]);
    // Two streams from one socket address: two clients, as the trusted proxy says.
    const streams = ['203.0.113.1', '203.0.113.2'].map(
      (forwardedFor) => new StreamClient(new WebSocket(`${server.wsUrl}/sdk/v1/stream`, ['flagplane.v1', `flagplane.key.${DEMO.prodClientKey}`], { headers: { 'X-Forwarded-For': forwardedFor } })),
    );
    try {
      await Promise.all(streams.map((stream) => withTimeout(stream.opened, 5000, 'a stream behind the proxy')));
    } finally {
      for (const stream of streams) stream.ws.terminate();
    }
    for (const [flag, entry] of [['--trust-proxy', 'proxy.internal'], ['--allowed-hosts', 'flags.test:80']] as const) {
      const { err, io: refused } = collector();
      expect(await runCli([flag, entry], refused, undefined, {})).toEqual({ kind: 'exit', code: 2 });
      expect(err.join('\n')).toContain(JSON.stringify(entry));
    }
  });

  it('documents the options in the usage', async () => {
    const { out, io } = collector();
    await runCli(['--help'], io, undefined, {});
    for (const word of ['--admin-token <token>', 'FLAGPLANE_ADMIN_TOKEN', '--trust-proxy <addresses>', '--allowed-hosts <names>', '--allow-demo-credentials', 'streamsPerAddress=500', 'streamsPerKey=0']) {
      expect(out.join('\n')).toContain(word);
    }
  });
});
