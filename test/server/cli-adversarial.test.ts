import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../reference-server/cli-main';
import demo from '../../reference-server/demo.json';
import { DEMO, withTimeout } from './helpers';
import { bundleCli } from '../helpers/cli-bundle';

const root = resolve(import.meta.dirname, '../..');
// Its own bundle: test/server/cli.test.ts may build its own at the same time.
const outfile = join(root, 'node_modules', '.cache', 'flagplane-cli-adversarial', 'cli.mjs');
let dir: string;
let children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flagplane-cli-adversarial-'));
  await bundleCli(root, outfile);
});

afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function collector() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (text: string) => out.push(text), err: (text: string) => err.push(text) } };
}

/** The bundled CLI as a child process, with its output collected and its exit awaited. */
function cli(args: string[]) {
  const proc = spawn(process.execPath, [outfile, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  const output = { stdout: '', stderr: '' };
  proc.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  proc.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    proc.on('exit', (code, signal) => resolveExit({ code, signal })),
  );
  /** Resolves once stdout matches `pattern`; rejects if the process exits first. */
  const stdoutMatching = (pattern: RegExp, what: string) =>
    withTimeout(
      new Promise<RegExpExecArray>((resolveMatch, reject) => {
        const check = () => {
          const match = pattern.exec(output.stdout);
          if (match) resolveMatch(match);
        };
        proc.stdout!.on('data', check);
        check();
        void exited.then(() => reject(new Error(`CLI exited before ${what}: ${output.stderr}`)));
      }),
      10_000,
      what,
    );
  return { proc, output, exited, stdoutMatching };
}

/** Starts the CLI on a free port with the demo config; resolves with its base URL once the banner is out. */
async function startedCli() {
  const child = cli(['--port', '0']);
  const [, baseUrl] = await child.stdoutMatching(/base URL\s+(http:\/\/127\.0\.0\.1:\d+)[\s\S]*curl/, 'the banner');
  return { ...child, baseUrl: baseUrl! };
}

/** A POST /sdk/v1/events whose body is sent in two halves: the second when the test says so. */
function slowEventsPost(baseUrl: string) {
  const body = JSON.stringify({
    sentAt: new Date().toISOString(),
    events: [{ type: 'unregistered_flag', key: 'sent-across-shutdown' }],
  });
  const half = Math.floor(body.length / 2);
  let request!: ClientRequest;
  const answered = new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
    request = httpRequest(
      `${baseUrl}/sdk/v1/events`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${DEMO.prodClientKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
  });
  request.write(body.slice(0, half));
  // Headers and half the body must have reached the server before the signal.
  const sent = new Promise<void>((resolveSent) => request.once('socket', (socket) => socket.once('connect', () => setTimeout(resolveSent, 100))));
  return { sent, answered, finish: () => request.end(body.slice(half)) };
}

describe('the CLI process cannot start: it says why and exits non-zero', () => {
  it('a missing --config file: exit 1, one line naming the file, no stack trace, nothing on stdout', async () => {
    const { exited, output } = cli(['--config', join(dir, 'nowhere.json'), '--port', '0']);
    expect(await withTimeout(exited, 10_000, 'exit')).toEqual({ code: 1, signal: null });
    expect(output.stderr).toMatch(/^invalid config: .*nowhere\.json.*cannot be read/);
    expect(output.stderr).not.toMatch(/\n\s+at /);
    expect(output.stdout).toBe('');
  });

  it('a port already taken: exit 1 with "cannot listen", and the process does not linger', async () => {
    const blocker = createServer();
    await new Promise<void>((resolveListen) => blocker.listen(0, '127.0.0.1', resolveListen));
    try {
      const { port } = blocker.address() as { port: number };
      const { exited, output } = cli(['--port', String(port)]);
      expect(await withTimeout(exited, 10_000, 'exit')).toEqual({ code: 1, signal: null });
      expect(output.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
      expect(output.stdout).toBe('');
    } finally {
      await new Promise((resolveClose) => blocker.close(resolveClose));
    }
  });

  it('an empty --port (say `--port "$PORT"` with PORT unset): exit 2 with the usage', async () => {
    const { exited, output } = cli(['--port', '']);
    expect(await withTimeout(exited, 10_000, 'exit')).toEqual({ code: 2, signal: null });
    expect(output.stderr).toMatch(/--port must be an integer[\s\S]*Usage:/);
  });
});

describe('the CLI process on a signal', () => {
  it('SIGTERM with a request in flight: the request is still answered, then the process exits 0', async () => {
    const { proc, baseUrl, exited, output, stdoutMatching } = await startedCli();
    const post = slowEventsPost(baseUrl);
    await post.sent;
    proc.kill('SIGTERM');
    await stdoutMatching(/SIGTERM: closing streams, finishing requests/, 'the shutdown notice');
    post.finish();
    const answer = await withTimeout(post.answered, 5000, 'the answer to the request in flight');
    expect(answer.status).toBe(202);
    expect(JSON.parse(answer.body)).toEqual({ accepted: 1 });
    expect(await withTimeout(exited, 10_000, 'exit')).toEqual({ code: 0, signal: null });
    expect(output.stderr).toBe('');
  });

  it('a second signal while the first is still waiting on a stalled request exits at once with 1', async () => {
    const { proc, baseUrl, exited, stdoutMatching } = await startedCli();
    const post = slowEventsPost(baseUrl);
    post.answered.catch(() => undefined);
    await post.sent;
    proc.kill('SIGINT');
    await stdoutMatching(/SIGINT: closing streams, finishing requests/, 'the shutdown notice');
    proc.kill('SIGTERM');
    // Without the second signal, the 2 s grace would end in a clean exit with 0.
    expect(await withTimeout(exited, 10_000, 'exit on the second signal')).toEqual({ code: 1, signal: null });
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
