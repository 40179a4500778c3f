import { parseArgs } from 'node:util';
import type { CheckTarget } from './check-types';
import { UsageError } from './errors';

export const DEFAULT_TIMEOUT_MS = 5000;

export const CHECK_USAGE = `Usage: flagplane check <base_url> --key <sdk-key> [options]

Checks a flagplane data plane against docs/protocol.md, one line per check.
Read-only unless --admin-token is given.

Options:
  --key <sdk-key>        the SDK key the checks use (required)
  --stream-url <url>     also check the stream (ws://host, or the whole .../sdk/v1/stream URL)
  --admin-token <token>  also publish and revoke through the reference server's admin API,
                         with a throwaway key it creates (never --key)
  --environment <id>     the environment the admin checks publish to
                         (default: the one --key belongs to)
  --timeout <ms>         how long each request or stream frame may take (default: ${DEFAULT_TIMEOUT_MS})
  --json                 print { target, passed, failed, checks } instead of lines
  --help                 print this help

Exit codes: 0 every check passed, 1 a check failed, 2 bad usage.`;

export type CheckArgs = { kind: 'help' } | { kind: 'run'; target: CheckTarget; json: boolean };

function parseUrl(value: string, name: string, schemes: RegExp): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} must be a URL, not "${value}"`);
  }
  if (!schemes.test(url.protocol)) throw new UsageError(`${name} must be ${schemes.source.replace(/[\\^$():]/g, '').replace('|', ' or ')}, not "${value}"`);
  return url;
}

/** Parses `flagplane check`'s arguments; a {@link UsageError} says what is wrong. */
export function parseCheckArgs(argv: readonly string[]): CheckArgs {
  let parsed: ReturnType<typeof parseArgs<{ options: Record<string, { type: 'string' | 'boolean' }>; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { key: { type: 'string' }, 'stream-url': { type: 'string' }, 'admin-token': { type: 'string' }, environment: { type: 'string' }, timeout: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) return { kind: 'help' };
  if (parsed.positionals.length !== 1) throw new UsageError('give one base URL, e.g. flagplane check http://127.0.0.1:8787 --key svc_sdk_client_…');
  const key = values.key as string | undefined;
  if (!key) throw new UsageError('--key <sdk-key> is required');
  const timeout = (values.timeout as string | undefined) ?? String(DEFAULT_TIMEOUT_MS);
  if (!/^\d{1,7}$/.test(timeout) || Number(timeout) === 0) throw new UsageError(`--timeout must be a whole number of milliseconds above 0, not "${timeout}"`);
  if (values.environment !== undefined && values['admin-token'] === undefined) throw new UsageError('--environment is for the admin checks: give --admin-token too');
  const target: CheckTarget = { baseUrl: parseUrl(parsed.positionals[0]!, 'the base URL', /^(http|https):$/), key, timeoutMs: Number(timeout) };
  const streamUrl = values['stream-url'] as string | undefined;
  if (streamUrl !== undefined) target.streamUrl = parseUrl(streamUrl, '--stream-url', /^(ws|wss|http|https):$/).href;
  if (values['admin-token'] !== undefined) target.adminToken = values['admin-token'] as string;
  if (values.environment !== undefined) target.environment = values.environment as string;
  return { kind: 'run', target, json: values.json === true };
}
