/** The bundled CLI as a child process: when it cannot start, and on a signal. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, withTimeout } from './helpers';
import { bundleCli } from '../helpers/cli-bundle';

const root = resolve(import.meta.dirname, '../..');
// Its own bundle: test/reference-server/cli.test.ts may build its own at the same time.
const outfile = join(root, 'node_modules', '.cache', 'flagplane-cli-process', 'cli.mjs');
let dir: string;
let children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flagplane-cli-process-'));
  await bundleCli(root, outfile);
});

afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

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
    expect(output.stdout).toMatch(/\nclosed 0 streams with 1001 \(going away\); 1 request in flight finished, 0 cut; engines closed; \d+ ms\n$/);
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
