/** flagplane check against the reference server itself: every check passes, as lines and as JSON. */
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../../cli/check/run-check';
import { DEMO, useServerPool } from '../../helpers/reference-server';

const startServer = useServerPool();

/** runCheck with its output collected. */
async function check(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCheck(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('flagplane check against the reference server', () => {
  it('read-only, with the stream: every check passes, one ✓ line each with its section, and exit 0', async () => {
    const server = await startServer({ port: 0 });
    const { code, out, err } = await check([server.baseUrl, '--key', DEMO.prodClientKey, '--stream-url', `${server.wsUrl}/sdk/v1/stream`]);
    expect(err).toBe('');
    expect(out).not.toContain('✗');
    expect(out).toMatch(/^✓ snapshot\.200 .*\(protocol\.md §2, §3\)$/m);
    expect(out).toMatch(/^✓ stream\.bad-frame /m);
    expect(out).not.toMatch(/admin\./);
    expect(out).toMatch(/\n29 passed, 0 failed: http:\/\/127\.0\.0\.1:\d+$/);
    expect(code).toBe(0);
    // Read-only: nothing was published, no key was created, no event was stored.
    expect(server.stores.environments.get('production')!.kv.current).toBe(1);
    expect(server.stores.keys.list()).toHaveLength(4);
    expect(server.stores.diagnostics.events).toEqual([]);
  });

  it('with --admin-token, as --json: the admin checks pass too, and the user’s key is never revoked', async () => {
    const server = await startServer({ port: 0 });
    const { code, out } = await check([server.baseUrl, '--key', DEMO.prodServerKey, '--stream-url', server.wsUrl, '--admin-token', DEMO.adminToken, '--json']);
    const report = JSON.parse(out) as { target: string; passed: number; failed: number; checks: Array<{ id: string; section: string; ok: boolean; detail: string }> };
    expect(report).toMatchObject({ target: server.baseUrl, passed: 32, failed: 0 });
    expect(report.checks.map((entry) => entry.id).slice(-3)).toEqual(['admin.key', 'admin.publish', 'admin.revoke']);
    expect(report.checks[0]).toEqual({ id: 'snapshot.200', section: '§2, §3', ok: true, detail: expect.stringContaining('200') });
    expect(code).toBe(0);
    const keys = server.stores.keys.list();
    expect(keys.filter((key) => key.revoked)).toEqual([expect.objectContaining({ kind: 'server', environmentId: 'production' })]);
    expect(keys.find((key) => key.key === DEMO.prodServerKey)!.revoked).toBe(false);
  });

  it('a server that is not there: every check fails with what came back, exit 1', async () => {
    const server = await startServer({ port: 0 });
    await server.close();
    const { code, out } = await check([server.baseUrl, '--key', DEMO.prodClientKey, '--timeout', '500']);
    expect(out).toMatch(/^✗ snapshot\.200 .*\n {4}got: .*ECONNREFUSED/m);
    expect(out).toMatch(/\n0 passed, 20 failed: /);
    expect(code).toBe(1);
  });
});

describe('flagplane check: usage', () => {
  it.each([
    [[], /give one base URL/],
    [['http://127.0.0.1:1'], /--key <sdk-key> is required/],
    [['ftp://x', '--key', 'k'], /the base URL must be http or https/],
    [['http://x', '--key', 'k', '--timeout', '0'], /--timeout must be/],
    [['http://x', '--key', 'k', '--environment', 'production'], /--environment is for the admin checks/],
    [['http://x', '--key', 'k', '--nope'], /Unknown option '--nope'/],
  ])('%j: exit 2 with the reason and the usage', async (argv, reason) => {
    const { code, out, err } = await check(argv);
    expect(err).toMatch(reason);
    expect(err).toContain('Usage: flagplane check <base_url> --key <sdk-key>');
    expect(out).toBe('');
    expect(code).toBe(2);
  });

  it('--help prints the usage with exit 0', async () => {
    const { code, out } = await check(['--help']);
    expect(out).toContain('Exit codes: 0 every check passed, 1 a check failed, 2 bad usage.');
    expect(code).toBe(0);
  });
});
