import { parseArgs } from 'node:util';
import { ConfigError, demoConfig, loadConfigFile } from './config';
import { DEFAULT_LIMITS, resolveLimits, type ServerLimits } from './http/limits';
import type { ServerConfig } from './config';
import type { ReferenceServer, ShutdownReport } from './server';
import { startReferenceServer } from './server';
import { EngineError } from './stores/engine-error';
import { MissingPackageError } from './stores/optional-package';
import { STREAM_PATH } from './stream/messages';
import { parseTrustedProxies } from './http/client-address';
import { parseAllowedHosts } from './http/host-check';
import { DemoCredentialsError, exposureOf } from './demo-credentials';

/** Where the CLI writes; `cli.ts` passes the console, tests pass collectors. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export type CliOutcome = { kind: 'exit'; code: number } | { kind: 'running'; server: ReferenceServer };

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

export const USAGE = `Usage: flagplane-server [options]

Runs the flagplane reference server: the data plane (/sdk/v1/...) and the admin API (/admin/v1/...).

Options:
  --config <file>  JSON config: { adminToken?, environments: [...] } (default: the demo config)
  --port <port>    port to listen on, 0 for any free port (default: ${DEFAULT_PORT})
  --host <host>    interface to listen on (default: ${DEFAULT_HOST})
  --redis <url>    keep environments, snapshots, keys and traits in Redis, shared with every
                   instance on it (env FLAGPLANE_REDIS_URL; needs the ioredis package)
  --postgres <url> keep the identify queue and analytics in Postgres (env FLAGPLANE_POSTGRES_URL;
                   needs the pg package)
  --admin-token <token>
                   the admin API's token, at least 8 characters (env FLAGPLANE_ADMIN_TOKEN;
                   default: the config's, else random per start)
  --trust-proxy <addresses>
                   proxies whose X-Forwarded-For is believed: addresses and CIDR ranges,
                   comma-separated, repeatable (default: none)
  --allowed-hosts <names>
                   Host names served besides localhost and loopback addresses, comma-separated,
                   repeatable; .example.com allows it and every name under it
  --allow-demo-credentials
                   serve the demo's admin token and keys off loopback or on Redis/Postgres,
                   where the server otherwise refuses to start
  --limit <name=value>
                   change one limit; repeatable. The limits and their defaults:
${Object.entries(DEFAULT_LIMITS)
  .map(([name, value]) => `                     ${name}=${value}`)
  .join('\n')}
  --help           print this help

Without --redis and --postgres everything is in memory. With --redis, --config seeds an empty
Redis only: once this deployment's data is there, the config's environments and keys are not
applied again.`;

/** `--limit name=value` options as limits; the values are checked by resolveLimits. */
function parseLimits(values: readonly string[]): Partial<ServerLimits> {
  const limits: Record<string, number> = {};
  for (const value of values) {
    const match = /^(\w+)=(\d+)$/.exec(value);
    if (!match) throw new TypeError(`--limit must be name=value with a whole number, not "${value}"`);
    limits[match[1]!] = Number(match[2]);
  }
  resolveLimits(limits);
  return limits as Partial<ServerLimits>;
}

/** A repeatable, comma-separated list option, checked by `check`. */
function parseListOption(values: readonly string[] | undefined, check: (entries: readonly string[]) => unknown): string[] | undefined {
  if (values === undefined) return undefined;
  const entries = values.flatMap((value) => value.split(',')).map((entry) => entry.trim()).filter(Boolean);
  check(entries);
  return entries;
}

interface RunArgs {
  kind: 'run';
  config?: string;
  port: number;
  host: string;
  limits: Partial<ServerLimits>;
  redis?: string;
  postgres?: string;
  adminToken?: string;
  trustProxy?: string[];
  allowedHosts?: string[];
  allowDemoCredentials: boolean;
}

type ParsedArgs = { kind: 'help' } | RunArgs;

/** The options of the security section: admin token, proxies, hosts, the demo opt-in. */
function parseSecurityArgs(values: { 'admin-token'?: string; 'trust-proxy'?: string[]; 'allowed-hosts'?: string[]; 'allow-demo-credentials'?: boolean }, env: NodeJS.ProcessEnv) {
  const adminToken = values['admin-token'] ?? (env.FLAGPLANE_ADMIN_TOKEN || undefined);
  if (adminToken !== undefined && adminToken.length < 8) throw new TypeError('--admin-token (or FLAGPLANE_ADMIN_TOKEN) must be at least 8 characters');
  const trustProxy = parseListOption(values['trust-proxy'], parseTrustedProxies);
  const allowedHosts = parseListOption(values['allowed-hosts'], parseAllowedHosts);
  return {
    ...(adminToken !== undefined && { adminToken }),
    ...(trustProxy !== undefined && { trustProxy }),
    ...(allowedHosts !== undefined && { allowedHosts }),
    allowDemoCredentials: values['allow-demo-credentials'] ?? false,
  };
}

function parseCliArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      limit: { type: 'string', multiple: true },
      redis: { type: 'string' },
      postgres: { type: 'string' },
      'admin-token': { type: 'string' },
      'trust-proxy': { type: 'string', multiple: true },
      'allowed-hosts': { type: 'string', multiple: true },
      'allow-demo-credentials': { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { kind: 'help' };
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d{1,5}$/.test(values.port ?? '0') || port > 65535) throw new TypeError(`--port must be an integer from 0 to 65535, not "${values.port}"`);
  // '' would make node:http listen on every interface, not on the default one.
  if (values.host === '') throw new TypeError('--host must not be empty');
  const parsed: RunArgs = { kind: 'run', port, host: values.host ?? DEFAULT_HOST, limits: parseLimits(values.limit ?? []), ...parseSecurityArgs(values, env) };
  if (values.config !== undefined) parsed.config = values.config;
  const redis = values.redis ?? (env.FLAGPLANE_REDIS_URL || undefined);
  const postgres = values.postgres ?? (env.FLAGPLANE_POSTGRES_URL || undefined);
  if (redis === '' || postgres === '') throw new TypeError('--redis and --postgres need a URL');
  if (redis !== undefined) parsed.redis = redis;
  if (postgres !== undefined) parsed.postgres = postgres;
  return parsed;
}

/** Where the console's script is, and whether it was built there. */
export interface ConsoleAssets {
  dir: string;
  built: boolean;
}

function describeEngines(engines: ReferenceServer['engines']): string {
  if (engines.control === 'memory' && engines.events === 'memory') return 'in memory (--redis and --postgres share them between instances)';
  const control = engines.control === 'redis' ? 'Redis' : 'memory';
  const events = engines.events === 'postgres' ? 'Postgres' : 'memory';
  return `environments, keys and traits in ${control}; identify queue and analytics in ${events}`;
}

/**
 * The banner: the console first (its URL carries the admin token in the fragment, which no
 * request sends), then URLs, environments with their keys, the admin token, and a curl line.
 */
export function describeServer(server: ReferenceServer, console?: ConsoleAssets): string {
  const lines = ['flagplane reference server'];
  if (console) {
    lines.push(
      console.built
        ? `  console      ${server.baseUrl}/#token=${encodeURIComponent(server.adminToken)}`
        : `  console      not built (no console.js in ${console.dir}): run npm run build`,
    );
  }
  lines.push(
    `  base URL     ${server.baseUrl}`,
    `  stream URL   ${server.wsUrl}${STREAM_PATH}`,
    `  admin token  ${server.adminToken}`,
    `  instance     ${server.instanceId}`,
    `  stores       ${describeEngines(server.engines)}`,
    '',
    'environments',
  );
  for (const environment of server.stores.environments.list()) {
    lines.push(`  ${environment.id} (${environment.kind}, version ${environment.kv.current})`);
    for (const key of server.stores.keys.list(environment.id)) lines.push(`    ${key.kind.padEnd(6)}  ${key.key}${key.revoked ? '  (revoked)' : ''}`);
  }
  const active = server.stores.keys.list().filter((key) => !key.revoked);
  const clientKey = active.find((key) => key.kind === 'client') ?? active[0];
  if (clientKey) {
    lines.push('', 'try', `  curl -H 'Authorization: Bearer ${clientKey.key}' ${server.baseUrl}/sdk/v1/snapshot`);
  }
  return lines.join('\n');
}

/** The line the CLI prints once a signal's close() is done. */
export function describeShutdown({ streams, requests, ms }: ShutdownReport): string {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `closed ${plural(streams, 'stream')} with 1001 (going away); ${plural(requests.finished, 'request')} in flight finished, ${requests.cut} cut; engines closed; ${ms} ms`;
}

/** Parses `argv`, loads the config and starts the server (with the console of `console`); never calls `process.exit`. */
export async function runCli(argv: readonly string[], io: CliIo, console?: ConsoleAssets, env: NodeJS.ProcessEnv = process.env): Promise<CliOutcome> {
  let args: ParsedArgs;
  try {
    args = parseCliArgs(argv, env);
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return { kind: 'exit', code: 2 };
  }
  if (args.kind === 'help') {
    io.out(USAGE);
    return { kind: 'exit', code: 0 };
  }
  let config: ServerConfig;
  try {
    config = args.config === undefined ? demoConfig() : await loadConfigFile(args.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`invalid config: ${error.message}`);
    return { kind: 'exit', code: 1 };
  }
  let server: ReferenceServer;
  try {
    server = await startReferenceServer({
      port: args.port,
      host: args.host,
      config,
      limits: args.limits,
      allowDemoCredentials: args.allowDemoCredentials,
      ...(args.adminToken !== undefined && { adminToken: args.adminToken }),
      ...(args.trustProxy !== undefined && { trustProxy: args.trustProxy }),
      ...(args.allowedHosts !== undefined && { allowedHosts: args.allowedHosts }),
      ...(args.redis !== undefined && { redis: args.redis }),
      ...(args.postgres !== undefined && { postgres: args.postgres }),
      ...(console && { consoleDir: console.dir }),
      onInternalError: (error) => io.err(`internal error: ${(error as Error)?.stack ?? String(error)}`),
      onClose: (report) => io.out(describeShutdown(report)),
    });
  } catch (error) {
    if (error instanceof MissingPackageError || error instanceof EngineError || error instanceof DemoCredentialsError) {
      io.err(error.message);
      return { kind: 'exit', code: 1 };
    }
    io.err(`cannot listen on ${args.host}:${args.port}: ${(error as Error).message}`);
    return { kind: 'exit', code: 1 };
  }
  io.out(describeServer(server, console));
  if (args.allowDemoCredentials && exposureOf(args.host, args).kind !== 'private') {
    io.err('warning: --allow-demo-credentials: anyone who reaches this server can use the demo keys, and with the demo admin token change every flag');
  }
  return { kind: 'running', server };
}
